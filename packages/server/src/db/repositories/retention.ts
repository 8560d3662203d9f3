// Retention (DESIGN.md §4): message metadata is kept MAILSVC_RETENTION_DAYS, then deleted with its
// events and idempotency records, a small batch per statement so no delete holds locks for long.

import { encodeUlid } from '@mailsvc/contract/http';
import { sql } from 'kysely';
import type { Db } from '../schema.js';

/** Statuses after which nothing more happens to a message (complained can still follow sent). */
const FINAL = ['sent', 'delivered', 'bounced', 'failed', 'suppressed', 'expired', 'complained'];

/**
 * Deletes up to `limit` messages accepted before `before` that reached a final status, with their
 * events, idempotency records and feedback evidence (the raw reports); returns how many. Message ids are ULIDs, so "accepted before"
 * is a range of the primary key (no index on created_at needed). Rows another process is
 * deleting (or a worker holds) are skipped, so sweepers on every worker can run at once.
 */
export async function deleteMessagesBefore(db: Db, before: Date, limit: number): Promise<number> {
  const cutoff = `msg_${encodeUlid(before.getTime(), new Uint8Array(16))}`;
  const { rows } = await sql<{ id: string }>`
    WITH doomed AS (
      SELECT id FROM messages
      WHERE id < ${cutoff} AND status IN (${sql.join(FINAL)})
      ORDER BY id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
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
