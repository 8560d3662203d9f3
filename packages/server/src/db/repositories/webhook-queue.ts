// The webhook deliveries as a queue (db/functions/webhook_deliveries.sql) and the outbox's entry
// for events that are not a message's (db/functions/webhook_outbox.sql). Every time comes from
// the caller's clock.
import { toStorableString } from '@mailsvc/contract/json-input';
import { sql } from 'kysely';
import { newId, ulid } from '../../ids.js';
import type { Lease } from '../../queue/leased-queue-runner.js';
import type { Db } from '../schema.js';

export interface ClaimedDelivery {
  /** The delivery's id, as text (the runner's item id). */
  id: string;
  eventId: string;
  endpointId: string;
  environmentId: string;
  tenantId: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  type: string;
  data: Record<string, unknown>;
  occurredAt: Date;
  claimToken: string;
}

export async function extendDeliveryLeases(db: Db, claimTokens: string[], lockedUntil: Date): Promise<void> {
  if (claimTokens.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: lockedUntil })
    .where('status', '=', 'sending')
    .where('claim_token', 'in', claimTokens)
    .execute();
}

/** The embedded database's start: deliveries a process that died had claimed go out now (as mail's). */
export async function releaseAllDeliveryLeases(db: Db, now: Date): Promise<number> {
  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: new Date(now.getTime() - 1) })
    .where('status', '=', 'sending')
    .returning('id')
    .execute();
  return rows.length;
}

export interface WebhookAttemptRecord {
  deliveryId: string;
  claimToken: string;
  attemptId: string;
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  responseBody: string;
  latencyMs: number;
  error: string | null;
  /** A failure's retry; null: no more attempts. */
  nextAttemptAt: Date | null;
  /** The endpoint answered 410 Gone: disable it. */
  gone: boolean;
  now: Date;
}

export interface DisabledEndpoint {
  endpointId: string;
  environmentId: string;
  tenantId: string;
  reason: 'gone' | 'failing';
}

interface ClaimedRow {
  id: number;
  event_id: string;
  endpoint_id: string;
  environment_id: string;
  tenant_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  type: string;
  data: Record<string, unknown>;
  occurred_at: string;
  claim_token: string;
}

/**
 * The runner's one round trip (record_and_claim_webhook_deliveries()): records the attempts that
 * ended, then claims under the lease (`lease.limit` 0: records only). The deliveries claimed and
 * the endpoints the record disabled (and audited).
 */
export async function recordAndClaimDeliveries(
  db: Db,
  records: WebhookAttemptRecord[],
  lease: Lease,
  perEndpoint: number,
  disableAfterDays: number,
): Promise<{ claimed: ClaimedDelivery[]; disabled: DisabledEndpoint[] }> {
  const items = records.map((r) => ({
    delivery_id: Number(r.deliveryId),
    claim_token: r.claimToken,
    attempt_id: r.attemptId,
    outcome: r.outcome,
    status_code: r.statusCode,
    // jsonb refuses a NUL or an unpaired surrogate (an error message cut at 500 may end in one)
    response_body: toStorableString(r.responseBody),
    latency_ms: Math.max(0, Math.round(r.latencyMs)),
    error: r.error === null ? null : toStorableString(r.error),
    next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
    gone: r.gone,
    now: r.now.toISOString(),
  }));
  const { rows } = await sql<{
    claimed: ClaimedRow[];
    disabled: { endpoint_id: string; environment_id: string; tenant_id: string; reason: string }[];
  }>`
    SELECT * FROM record_and_claim_webhook_deliveries(${JSON.stringify(items)}::jsonb,
      make_interval(days => ${disableAfterDays}), ${ulid(lease.now.getTime()).slice(0, 10)},
      ${lease.now}, ${lease.limit}, ${lease.lockedUntil}, ${lease.claimToken}, ${perEndpoint})`.execute(db);
  const row = rows[0]!;
  return {
    claimed: row.claimed.map((r) => ({
      id: String(r.id),
      eventId: r.event_id,
      endpointId: r.endpoint_id,
      environmentId: r.environment_id,
      tenantId: r.tenant_id,
      attempts: r.attempts,
      url: r.url,
      secret: r.secret,
      previousSecret: r.previous_secret,
      previousSecretUntil: r.previous_secret_until === null ? null : new Date(r.previous_secret_until),
      type: r.type,
      data: r.data,
      occurredAt: new Date(r.occurred_at),
      claimToken: r.claim_token,
    })),
    disabled: row.disabled.map((r) => ({
      endpointId: r.endpoint_id,
      environmentId: r.environment_id,
      tenantId: r.tenant_id,
      reason: r.reason as DisabledEndpoint['reason'],
    })),
  };
}

export interface NewWebhookEvent {
  id: string;
  tenantId: string;
  environmentId: string;
  type: string;
  messageId?: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Queues events for the endpoints that take them, in the caller's transaction (the outbox: call
 * it in the transaction of the change the event reports). `endpointId`: to that endpoint only,
 * whatever it takes (a test event). The number of deliveries queued.
 */
export async function queueWebhookEvents(
  db: Db,
  events: NewWebhookEvent[],
  endpointId?: string,
): Promise<number> {
  if (events.length === 0) return 0;
  const rows = events.map((e) => ({
    id: e.id,
    tenant_id: e.tenantId,
    environment_id: e.environmentId,
    type: e.type,
    message_id: e.messageId ?? null,
    data: e.data,
    created_at: e.createdAt.toISOString(),
  }));
  const { rows: out } = await sql<{ n: number }>`
    SELECT queue_webhook_events(${JSON.stringify(rows)}::jsonb, ${endpointId ?? null}) AS n`.execute(db);
  return Number(out[0]?.n ?? 0);
}

/**
 * Replays: new deliveries of stored events with their own ids (the same webhook-id). One event
 * (to `endpointId`, or to every endpoint it was delivered to), or every event whose delivery to
 * `endpointId` failed for good within the range. Never an event that occurred before `oldest`
 * (the caller keeps it clear of the retention sweep's deletes: a delivery's event is not held by a
 * foreign key). The number queued.
 */
export async function replayDeliveries(
  db: Db,
  q: {
    environmentId: string;
    eventId?: string;
    endpointId?: string;
    after?: Date;
    before?: Date;
    oldest: Date;
    limit: number;
  },
  now: Date,
): Promise<number> {
  const r = await sql`
    INSERT INTO webhook_deliveries (event_id, endpoint_id, environment_id, order_key, event_type,
                                    occurred_at, next_attempt_at, created_at, updated_at)
    SELECT DISTINCT ON (d.event_id, d.endpoint_id) d.event_id, d.endpoint_id, d.environment_id,
           d.order_key, d.event_type, d.occurred_at, ${now}, ${now}, ${now}
      FROM webhook_deliveries d
     WHERE d.environment_id = ${q.environmentId}
       AND (${q.eventId ?? null}::text IS NULL OR d.event_id = ${q.eventId ?? null})
       AND (${q.endpointId ?? null}::text IS NULL OR d.endpoint_id = ${q.endpointId ?? null})
       AND (${q.eventId ?? null}::text IS NOT NULL OR d.status = 'failed')
       AND (${q.after ?? null}::timestamptz IS NULL OR d.occurred_at >= ${q.after ?? null})
       AND (${q.before ?? null}::timestamptz IS NULL OR d.occurred_at < ${q.before ?? null})
       AND d.occurred_at >= ${q.oldest}
       -- not one already waiting to go again; in a range, not one a replay since delivered (a
       -- range replayed twice sends each failed event once)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
                        WHERE o.event_id = d.event_id AND o.endpoint_id = d.endpoint_id
                          AND (o.status IN ('pending', 'sending')
                               OR (${q.eventId ?? null}::text IS NULL AND o.status = 'succeeded')))
     ORDER BY d.event_id, d.endpoint_id
     LIMIT ${q.limit}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** Whether the environment has an event with this id (sent to one of its endpoints). */
export async function hasWebhookEvent(db: Db, environmentId: string, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_events')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A page of attempts, newest first (ids are ULIDs of their time). */
export function listAttemptsPage(
  db: Db,
  environmentId: string,
  q: {
    endpointId?: string;
    eventType?: string;
    eventId?: string;
    messageId?: string;
    outcome?: string;
    fromId?: string;
    belowId?: string;
    limit: number;
  },
) {
  let query = db.selectFrom('webhook_attempts').selectAll().where('environment_id', '=', environmentId);
  if (q.endpointId !== undefined) query = query.where('endpoint_id', '=', q.endpointId);
  if (q.eventType !== undefined) query = query.where('event_type', '=', q.eventType);
  if (q.eventId !== undefined) query = query.where('event_id', '=', q.eventId);
  if (q.messageId !== undefined) {
    // a message's events (webhook_events_message_idx), then their attempts
    const messageId = q.messageId;
    query = query.where('event_id', 'in', (eb) =>
      eb
        .selectFrom('webhook_events')
        .select('id')
        .where('message_id', '=', messageId)
        .where('environment_id', '=', environmentId),
    );
  }
  if (q.outcome !== undefined) query = query.where('outcome', '=', q.outcome as 'succeeded' | 'failed');
  if (q.fromId !== undefined) query = query.where('id', '>=', q.fromId);
  if (q.belowId !== undefined) query = query.where('id', '<', q.belowId);
  return query.orderBy('id', 'desc').limit(q.limit).execute();
}

export type RecipientEventType =
  | 'recipient.unsubscribed'
  | 'recipient.resubscribed'
  | 'recipient.suppressed'
  | 'recipient.unsuppressed';

/**
 * A recipient's event (an unsubscribe, a resubscribe, a suppression beginning or lifted), queued
 * in the caller's transaction: call it where the recipient's state changes. `reason`: manual,
 * hard_bounce or complaint for the suppression events; `until`: a suppression's end, if it has one.
 */
export function queueRecipientEvent(
  db: Db,
  e: {
    tenantId: string;
    environmentId: string;
    email: string;
    type: RecipientEventType;
    reason?: string;
    until?: Date | null;
  },
  now: Date,
): Promise<number> {
  return queueWebhookEvents(db, [
    {
      id: newId('evt', now.getTime()),
      tenantId: e.tenantId,
      environmentId: e.environmentId,
      type: e.type,
      data: {
        email: e.email,
        ...(e.reason !== undefined && { reason: e.reason }),
        ...(e.until !== undefined && { until: e.until?.toISOString() ?? null }),
        occurredAt: now.toISOString(),
      },
      createdAt: now,
    },
  ]);
}
