// Retention (DESIGN.md §4): message metadata is kept MAILSVC_RETENTION_DAYS, then deleted with its
// events, metadata pairs and idempotency records, a small batch per statement so no delete holds locks for long.

import { WEBHOOK_ATTEMPT_RETENTION_DAYS } from '@mailsvc/contract/api';
import { encodeUlid } from '@mailsvc/contract/http';
import { sql } from 'kysely';
import { ulid } from '../../ids.js';
import type { Db } from '../schema.js';

/** Statuses after which nothing more happens to a message (complained can still follow sent). */
const FINAL = ['sent', 'delivered', 'bounced', 'failed', 'suppressed', 'expired', 'complained', 'canceled'];

/**
 * Deletes up to `limit` messages accepted before `before` that reached a final status, with their
 * events, metadata pairs (message_metadata), idempotency records and feedback evidence (the raw reports); returns how many. Message ids are ULIDs, so "accepted before"
 * is a range of the primary key (no index on created_at needed). Rows another process is
 * deleting (or a worker holds) are skipped, so sweepers on every worker can run at once.
 */
export async function deleteMessagesBefore(db: Db, before: Date, limit: number): Promise<number> {
  const cutoff = `msg_${encodeUlid(before.getTime(), new Uint8Array(16))}`;
  const { rows } = await sql<{ id: string }>`
    WITH doomed AS (
      SELECT id, environment_id, metadata FROM messages
      WHERE id < ${cutoff} AND status IN (${sql.join(FINAL)})
      ORDER BY id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), pairs AS (
      DELETE FROM message_metadata mm
       USING doomed d CROSS JOIN LATERAL jsonb_each_text(d.metadata) kv
       WHERE mm.environment_id = d.environment_id AND mm.key = kv.key AND mm.value = kv.value
         AND mm.message_id = d.id
    ), events AS (
      DELETE FROM message_events WHERE message_id IN (SELECT id FROM doomed)
    ), keys AS (
      DELETE FROM idempotency_keys WHERE message_id IN (SELECT id FROM doomed)
    ), reports AS (
      DELETE FROM feedback_reports WHERE message_id IN (SELECT id FROM doomed)
    )
    DELETE FROM messages WHERE id IN (SELECT id FROM doomed) RETURNING id`.execute(db);
  return rows.length;
}

/** Deletes up to `limit` idempotency records whose 24 h window has passed; returns how many. */
export async function deleteExpiredIdempotencyKeys(db: Db, now: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ key: string }>`
    DELETE FROM idempotency_keys
    WHERE (environment_id, key) IN (
      SELECT environment_id, key FROM idempotency_keys WHERE expires_at < ${now} LIMIT ${limit}
    )
    RETURNING key`.execute(db);
  return rows.length;
}

/** Deletes up to `limit` webhook and SNS message ids whose replay window has passed. */
export async function deleteExpiredIntakeIds(db: Db, now: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ event_id: string }>`
    DELETE FROM event_intake_seen
    WHERE (environment_id, event_id) IN (
      SELECT environment_id, event_id FROM event_intake_seen WHERE expires_at < ${now} LIMIT ${limit}
    )
    RETURNING event_id`.execute(db);
  return rows.length;
}

/**
 * A bulk send's template data is needed only while one of its messages may still be rendered:
 * drops it from up to `limit` jobs none of whose messages waits (queued, sending, deferred).
 */
export async function dropFinishedJobData(db: Db, limit: number): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    UPDATE bulk_jobs SET template_data = NULL
     WHERE id IN (
       SELECT j.id FROM bulk_jobs j
        WHERE j.template_data IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM messages m
                           WHERE m.bulk_job_id = j.id AND m.status IN ('queued', 'sending', 'deferred'))
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING id`.execute(db);
  return rows.length;
}

/** Deletes up to `limit` bulk jobs created before `before` whose messages retention already deleted. */
export async function deleteJobsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    DELETE FROM bulk_jobs
     WHERE id IN (
       SELECT j.id FROM bulk_jobs j
        WHERE j.created_at < ${before}
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.bulk_job_id = j.id)
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING id`.execute(db);
  return rows.length;
}

/**
 * Settles the messages of stopped bulk sends that are not parked: a canceled job's messages that
 * were in flight when it was canceled (deferred since, or their lease lost) become `canceled`; a
 * paused job's waiting messages past their expiry become `expired`, as the worker would have
 * made them. Up to `limit` of each; returns how many.
 */
export async function settleStoppedJobMessages(db: Db, now: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    WITH stopped AS (
      SELECT m.id, j.status AS job_status FROM messages m JOIN bulk_jobs j ON j.id = m.bulk_job_id
       WHERE j.status IN ('canceled', 'paused_bounce_rate')
         AND (m.status IN ('queued', 'deferred') OR (m.status = 'sending' AND m.locked_until < ${now}))
         AND (j.status = 'canceled' OR m.expires_at <= ${now})
       LIMIT ${limit}
       FOR UPDATE OF m SKIP LOCKED
    ), settled AS (
    UPDATE messages m
       SET status = CASE WHEN s.job_status = 'canceled' THEN 'canceled' ELSE 'expired' END,
           locked_until = NULL, claim_token = NULL, data = NULL, updated_at = ${now},
           last_error = CASE WHEN s.job_status = 'canceled' THEN m.last_error
                             ELSE '{"code":"expired","message":"Its bulk send was paused until the message expired."}'::jsonb END
      FROM stopped s
     WHERE m.id = s.id
    RETURNING m.id, m.tenant_id, m.status
  ), events AS (
    -- the timeline event (and so the message.canceled or message.expired webhook) with the change
    INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
    SELECT 'evt_' || ${ulid(now.getTime()).slice(0, 10)} || ulid_random_part(gen_random_uuid()),
           id, tenant_id, status, '{}'::jsonb, ${now}
      FROM settled
  )
  SELECT id FROM settled`.execute(db);
  return rows.length;
}

/**
 * Where the webhook rows kept end: the shorter of 30 days (the attempt log's promise) and
 * MAILSVC_RETENTION_DAYS (an event carries the recipient's address). The retention sweep deletes
 * what is older.
 */
export function webhookRowsKeptFrom(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - Math.min(WEBHOOK_ATTEMPT_RETENTION_DAYS, retentionDays) * 86_400_000);
}

/**
 * The oldest event a replay may copy a delivery of: an hour inside what the sweep keeps, so a
 * replay never reaches an event the sweep may be deleting (a delivery's event is not held by a
 * foreign key).
 */
export function webhookReplayableFrom(now: Date, retentionDays: number): Date {
  return new Date(webhookRowsKeptFrom(now, retentionDays).getTime() + 3_600_000);
}

/**
 * Webhook rows past `before` (the sweep passes webhookRowsKeptFrom()): attempts, finished
 * deliveries, then events none of whose deliveries is left. Attempt and event ids are ULIDs of
 * their time, so each batch is a range of the primary key. Up to `limit` of each; how many in all.
 */
export async function deleteWebhookRowsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const below = (prefix: string) => `${prefix}_${encodeUlid(before.getTime(), new Uint8Array(16))}`;
  const attempts = await sql`
    DELETE FROM webhook_attempts WHERE id IN (
      SELECT id FROM webhook_attempts WHERE id < ${below('wha')} ORDER BY id LIMIT ${limit})`.execute(db);
  const deliveries = await sql`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries
       WHERE status IN ('succeeded', 'failed') AND updated_at < ${before} ORDER BY updated_at LIMIT ${limit})`.execute(
    db,
  );
  const events = await sql`
    DELETE FROM webhook_events WHERE id IN (
      SELECT e.id FROM webhook_events e
       WHERE e.id < ${below('evt')} AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
       ORDER BY e.id LIMIT ${limit})`.execute(db);
  return [attempts, deliveries, events].reduce((n, r) => n + Number(r.numAffectedRows ?? 0), 0);
}

/**
 * The console's spent rows: sign-in codes after a day (the daily wrong-code count reads a day
 * back), console credentials a day after they expired, then sessions 30 days after they ended
 * whose credentials are gone. Up to `limit` of each; how many in all.
 */
export async function deleteConsoleRowsBefore(db: Db, now: Date, limit: number): Promise<number> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const monthAgo = new Date(now.getTime() - 30 * 86_400_000);
  const codes = await sql`
    DELETE FROM console_sign_in_codes WHERE id IN (
      SELECT id FROM console_sign_in_codes WHERE created_at < ${dayAgo} ORDER BY created_at LIMIT ${limit})`.execute(
    db,
  );
  const credentials = await sql`
    DELETE FROM api_keys WHERE id IN (
      SELECT id FROM api_keys WHERE session_id IS NOT NULL AND expires_at < ${dayAgo} ORDER BY expires_at LIMIT ${limit})`.execute(
    db,
  );
  const sessions = await sql`
    DELETE FROM console_sessions WHERE id IN (
      SELECT s.id FROM console_sessions s
       WHERE (s.expires_at < ${monthAgo} OR s.revoked_at < ${monthAgo})
         AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.session_id = s.id)
       ORDER BY s.id LIMIT ${limit})`.execute(db);
  return [codes, credentials, sessions].reduce((n, r) => n + Number(r.numAffectedRows ?? 0), 0);
}
