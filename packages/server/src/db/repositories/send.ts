// The reads (one round trip) and the accept (one statement, one round trip) of POST /v1/send.
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

export interface SendingDomainRow {
  domain: string;
  scope: 'tenant' | 'project' | 'environment';
  status: 'pending' | 'verified' | 'failed';
  projectId: string | null;
  environmentId: string | null;
}

export interface RecipientRow {
  unsubscribedAt: Date | null;
  resubscribedAt: Date | null;
  complainedAt: Date | null;
  cooldownUntil: Date | null;
  suppressedUntil: Date | null;
}

export interface SendContext {
  /** The live record of the Idempotency-Key, when one was sent and is held. */
  idempotency: { requestSha256: Buffer; messageId: string } | undefined;
  /** Custom sending domains of the scope, oldest first. */
  domains: SendingDomainRow[];
  recipient: RecipientRow | undefined;
}

/**
 * Every read the send checks need, in one round trip: the idempotency record (step 3), the
 * custom sending domains (step 7) and the recipient's state (step 9). The checks themselves run
 * in DESIGN.md §3 order in the use-case.
 */
export async function readSendContext(
  db: Db,
  q: {
    tenantId: string;
    projectId: string;
    environmentId: string;
    email: string;
    idempotencyKey: string | undefined;
    now: Date;
  },
): Promise<SendContext> {
  const { rows } = await sql<{
    domains: SendingDomainRow[];
    hasRecipient: boolean;
    unsubscribedAt: Date | null;
    resubscribedAt: Date | null;
    complainedAt: Date | null;
    cooldownUntil: Date | null;
    suppressedUntil: Date | null;
    requestSha256: Buffer | null;
    messageId: string | null;
  }>`
    SELECT
      (SELECT coalesce(json_agg(json_build_object(
                'domain', d.domain, 'scope', d.scope, 'status', d.status,
                'projectId', d.project_id, 'environmentId', d.environment_id) ORDER BY d.created_at), '[]')
         FROM sending_domains d
        WHERE d.tenant_id = ${q.tenantId}
          AND (d.environment_id = ${q.environmentId}
               OR (d.scope = 'project' AND d.project_id = ${q.projectId})
               OR d.scope = 'tenant')) AS domains,
      r.email IS NOT NULL AS "hasRecipient",
      r.unsubscribed_at AS "unsubscribedAt",
      r.resubscribed_at AS "resubscribedAt",
      r.complained_at AS "complainedAt",
      r.cooldown_until AS "cooldownUntil",
      r.suppressed_until AS "suppressedUntil",
      i.request_sha256 AS "requestSha256",
      i.message_id AS "messageId"
    FROM (VALUES (1)) AS one (x)
    LEFT JOIN recipients r ON r.environment_id = ${q.environmentId} AND r.email = ${q.email}
    LEFT JOIN idempotency_keys i
      ON i.environment_id = ${q.environmentId} AND i.key = ${q.idempotencyKey ?? null} AND i.expires_at > ${q.now}
  `.execute(db);
  const row = rows[0]!;
  return {
    idempotency:
      row.requestSha256 && row.messageId
        ? { requestSha256: row.requestSha256, messageId: row.messageId }
        : undefined,
    domains: row.domains,
    recipient: row.hasRecipient
      ? {
          unsubscribedAt: row.unsubscribedAt,
          resubscribedAt: row.resubscribedAt,
          complainedAt: row.complainedAt,
          cooldownUntil: row.cooldownUntil,
          suppressedUntil: row.suppressedUntil,
        }
      : undefined,
  };
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

/** SQLSTATE raised by accept_message() when the quota is used up (0004_accept_message.sql). */
const QUOTA_EXCEEDED = 'MSQ01';

/**
 * One statement, so one round trip: accept_message() (0004_accept_message.sql) claims the
 * idempotency record, inserts the message (the queue entry) and its event, and counts usage
 * atomically (the tenant never passes a no-overage limit under any concurrency), in the
 * statement's own transaction. A refused quota undoes everything it wrote.
 */
export async function acceptMessage(
  db: Db,
  m: AcceptedMessage,
  q: {
    period: string;
    idempotency?: { key: string; requestSha256: Buffer; expiresAt: Date };
    eventId: string;
    now: Date;
  },
): Promise<AcceptOutcome> {
  try {
    const { rows } = await sql<{ outcome: 'accepted' | 'idempotency_taken' }>`
      SELECT accept_message(
        p_id => ${m.id}, p_tenant_id => ${m.tenantId}, p_project_id => ${m.projectId},
        p_environment_id => ${m.environmentId}, p_api_key_id => ${m.apiKeyId},
        p_template_id => ${m.templateId}, p_template_version => ${m.templateVersion},
        p_category => ${m.category}, p_priority => ${m.priority}::smallint, p_to_email => ${m.toEmail},
        p_from_email => ${m.fromEmail}, p_from_name => ${m.fromName}, p_reply_to => ${m.replyTo},
        p_sending_domain => ${m.sendingDomain}, p_data => ${JSON.stringify(m.data)},
        p_expires_at => ${m.expiresAt}, p_event_id => ${q.eventId}, p_period => ${q.period},
        p_now => ${q.now}, p_idempotency_key => ${q.idempotency?.key ?? null},
        p_request_sha256 => ${q.idempotency?.requestSha256 ?? null},
        p_idempotency_expires => ${q.idempotency?.expiresAt ?? null}
      ) AS outcome`.execute(db);
    return { kind: rows[0]!.outcome };
  } catch (err) {
    if ((err as { code?: string }).code === QUOTA_EXCEEDED) return { kind: 'quota_exceeded' };
    throw err;
  }
}
