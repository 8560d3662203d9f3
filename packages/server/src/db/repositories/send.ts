// The reads and the one accept transaction of POST /v1/send.
import { sql } from 'kysely';
import type { Db, TemplateCategory } from '../schema.js';

export async function findIdempotencyRecord(db: Db, environmentId: string, key: string, now: Date) {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_sha256 as requestSha256', 'message_id as messageId'])
    .where('environment_id', '=', environmentId)
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Custom sending domains of the scope, most specific first. */
export async function findSendingDomains(
  db: Db,
  q: { tenantId: string; projectId: string; environmentId: string },
) {
  return db
    .selectFrom('sending_domains')
    .select(['domain', 'scope', 'status', 'project_id as projectId', 'environment_id as environmentId'])
    .where('tenant_id', '=', q.tenantId)
    .where((eb) =>
      eb.or([
        eb('environment_id', '=', q.environmentId),
        eb.and([eb('scope', '=', 'project'), eb('project_id', '=', q.projectId)]),
        eb('scope', '=', 'tenant'),
      ]),
    )
    .orderBy('created_at')
    .execute();
}

export async function findRecipient(db: Db, environmentId: string, email: string) {
  return db
    .selectFrom('recipients')
    .select([
      'unsubscribed_at as unsubscribedAt',
      'resubscribed_at as resubscribedAt',
      'complained_at as complainedAt',
      'cooldown_until as cooldownUntil',
      'suppressed_until as suppressedUntil',
    ])
    .where('environment_id', '=', environmentId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findPlan(db: Db, planId: string) {
  return db
    .selectFrom('plans')
    .select(['monthly_limit as monthlyLimit', 'overage_allowed as overageAllowed'])
    .where('id', '=', planId)
    .executeTakeFirstOrThrow();
}

export interface AcceptedMessage {
  id: string;
  tenantId: string;
  projectId: string;
  environmentId: string;
  apiKeyId: string;
  templateId: string;
  templateVersion: string;
  category: TemplateCategory;
  priority: number;
  toEmail: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  sendingDomain: string;
  data: Record<string, unknown>;
  expiresAt: Date;
}

export type AcceptOutcome =
  | { kind: 'accepted' }
  | { kind: 'quota_exceeded' }
  /** Another request holds this Idempotency-Key (it committed first). */
  | { kind: 'idempotency_taken' };

class Rollback extends Error {
  constructor(readonly outcome: AcceptOutcome) {
    super(outcome.kind);
  }
}

/**
 * One transaction: the idempotency record, the usage counters (atomic: the tenant never passes
 * a no-overage limit under any concurrency), the message (the queue entry) and its event.
 */
export async function acceptMessage(
  db: Db,
  m: AcceptedMessage,
  q: {
    period: string;
    monthlyLimit: number;
    overageAllowed: boolean;
    idempotency?: { key: string; requestSha256: Buffer; expiresAt: Date };
    eventId: string;
    now: Date;
  },
): Promise<AcceptOutcome> {
  try {
    return await db.transaction().execute(async (trx) => {
      if (q.idempotency) {
        // A concurrent holder of the key makes this wait until it commits; then nothing is
        // returned (its record is live) and the caller replays it.
        const claimed = await sql<{ key: string }>`
          INSERT INTO idempotency_keys (environment_id, key, request_sha256, message_id, created_at, expires_at)
          VALUES (${m.environmentId}, ${q.idempotency.key}, ${q.idempotency.requestSha256}, ${m.id}, ${q.now}, ${q.idempotency.expiresAt})
          ON CONFLICT (environment_id, key) DO UPDATE
            SET request_sha256 = EXCLUDED.request_sha256, message_id = EXCLUDED.message_id,
                created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
            WHERE idempotency_keys.expires_at <= ${q.now}
          RETURNING key`.execute(trx);
        if (claimed.rows.length === 0) throw new Rollback({ kind: 'idempotency_taken' });
      }
      const counted = await sql<{ sent: number }>`
        INSERT INTO tenant_usage (tenant_id, period, sent)
        SELECT ${m.tenantId}, ${q.period}, 1 WHERE ${q.monthlyLimit}::integer > 0 OR ${q.overageAllowed}::boolean
        ON CONFLICT (tenant_id, period) DO UPDATE SET sent = tenant_usage.sent + 1
          WHERE tenant_usage.sent < ${q.monthlyLimit}::integer OR ${q.overageAllowed}::boolean
        RETURNING sent`.execute(trx);
      if (counted.rows.length === 0) throw new Rollback({ kind: 'quota_exceeded' });
      await sql`
        INSERT INTO environment_usage (environment_id, tenant_id, period, sent)
        VALUES (${m.environmentId}, ${m.tenantId}, ${q.period}, 1)
        ON CONFLICT (environment_id, period) DO UPDATE SET sent = environment_usage.sent + 1`.execute(trx);
      await trx
        .insertInto('messages')
        .values({
          id: m.id,
          tenant_id: m.tenantId,
          project_id: m.projectId,
          environment_id: m.environmentId,
          api_key_id: m.apiKeyId,
          template_id: m.templateId,
          template_version: m.templateVersion,
          category: m.category,
          priority: m.priority,
          to_email: m.toEmail,
          from_email: m.fromEmail,
          from_name: m.fromName,
          reply_to: m.replyTo,
          sending_domain: m.sendingDomain,
          data: JSON.stringify(m.data),
          next_attempt_at: q.now,
          expires_at: m.expiresAt,
          created_at: q.now,
          updated_at: q.now,
        })
        .execute();
      await trx
        .insertInto('message_events')
        .values({
          id: q.eventId,
          message_id: m.id,
          tenant_id: m.tenantId,
          type: 'accepted',
          details: '{}',
          created_at: q.now,
        })
        .execute();
      return { kind: 'accepted' } as const;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.outcome;
    throw err;
  }
}
