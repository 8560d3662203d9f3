// The accept of POST /v1/send (one statement for a batch of sends, with the checks that need the
// database) and the read of a send's context (for the answers to refused sends).
import { sql } from 'kysely';
import { type RecipientState, toRecipientState } from '../recipient-state.js';
import type { Db, TemplateCategory } from '../schema.js';

/** The live record of an Idempotency-Key: it holds a message (a send) or a bulk job. */
export async function findIdempotencyRecord(db: Db, environmentId: string, key: string, now: Date) {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_sha256 as requestSha256', 'message_id as messageId', 'bulk_job_id as bulkJobId'])
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

export interface SendContext {
  /** The live record of the Idempotency-Key, when one was sent and is held. */
  idempotency: { requestSha256: Buffer; messageId: string | null } | undefined;
  /** Custom sending domains of the scope, oldest first. */
  domains: SendingDomainRow[];
  recipient: RecipientState | null;
}

export interface SendContextQuery {
  tenantId: string;
  projectId: string;
  environmentId: string;
  email: string;
  idempotencyKey: string | undefined;
  now: Date;
}

/**
 * Every read the send checks need, for a batch of sends in one round trip: per send, the
 * idempotency record (step 3), the custom sending domains (step 7) and the recipient's state
 * (step 9). The checks themselves run in DESIGN.md §3 order in the use-case. One result per
 * query, in the queries' order.
 */
export async function readSendContexts(db: Db, queries: readonly SendContextQuery[]): Promise<SendContext[]> {
  const payload = queries.map((q, n) => ({
    n,
    tenant_id: q.tenantId,
    project_id: q.projectId,
    environment_id: q.environmentId,
    email: q.email,
    key: q.idempotencyKey ?? null,
    now: q.now.toISOString(),
  }));
  const { rows } = await sql<{
    n: number;
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
      q.n,
      (SELECT coalesce(json_agg(json_build_object(
                'domain', d.domain, 'scope', d.scope, 'status', d.status,
                'projectId', d.project_id, 'environmentId', d.environment_id) ORDER BY d.created_at, d.domain), '[]')
         FROM sending_domains d
        WHERE d.tenant_id = q.tenant_id
          AND (d.environment_id = q.environment_id
               OR (d.scope = 'project' AND d.project_id = q.project_id)
               OR d.scope = 'tenant')) AS domains,
      r.email IS NOT NULL AS "hasRecipient",
      r.unsubscribed_at AS "unsubscribedAt",
      r.resubscribed_at AS "resubscribedAt",
      r.complained_at AS "complainedAt",
      r.cooldown_until AS "cooldownUntil",
      r.suppressed_until AS "suppressedUntil",
      i.request_sha256 AS "requestSha256",
      i.message_id AS "messageId"
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS q (
      n integer, tenant_id text, project_id text, environment_id text, email text, key text,
      now timestamptz)
    LEFT JOIN recipients r ON r.environment_id = q.environment_id AND r.email = q.email
    LEFT JOIN idempotency_keys i
      ON i.environment_id = q.environment_id AND i.key = q.key AND i.expires_at > q.now
  `.execute(db);
  const contexts = new Array<SendContext>(queries.length);
  for (const row of rows) {
    contexts[row.n] = {
      idempotency: row.requestSha256
        ? { requestSha256: row.requestSha256, messageId: row.messageId }
        : undefined,
      domains: row.domains,
      recipient: row.hasRecipient ? toRecipientState(row) : null,
    };
  }
  // filter() skips holes: an index missing from the rows shows as a shorter list.
  if (contexts.filter(Boolean).length !== queries.length) {
    throw new Error(`read ${rows.length} send contexts for ${queries.length} queries`);
  }
  return contexts;
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
  /** With `checks`: the explicit or configured From, or null for notifications@ the domain chosen. */
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
  /** With `checks`: ignored (accept_messages() chooses it). */
  sendingDomain: string | null;
  data: Record<string, unknown>;
  expiresAt: Date;
}

export interface IdempotencyRecord {
  requestSha256: Buffer;
  /** null: the key holds a bulk send. */
  messageId: string | null;
}

export type AcceptOutcome =
  | { kind: 'accepted' }
  | { kind: 'quota_exceeded' }
  /** The sending domain, the From or the recipient refuses the send (only items with `checks`). */
  | { kind: 'refused' }
  /** A live record holds this Idempotency-Key (committed first, or an earlier send of the batch). */
  | { kind: 'idempotency_taken'; record: IdempotencyRecord };

/** One send to accept, as accept_messages() takes it (db/functions/accept_messages.sql). */
export interface AcceptItem {
  message: AcceptedMessage;
  period: string;
  idempotency?: { key: string; requestSha256: Buffer; expiresAt: Date };
  eventId: string;
  now: Date;
  /**
   * Steps 7 and 9 run in the same statement: the sending domain (else `defaultDomain`) and the
   * From are chosen there and the item is 'refused' when a check fails. Without it, the caller
   * has run them and gives message.sendingDomain and message.fromEmail.
   */
  checks?: { defaultDomain: string };
}

/**
 * One statement, so one round trip and one transaction for a whole batch: accept_messages()
 * (db/functions/accept_messages.sql) replays live idempotency records, runs the sending-domain and
 * recipient checks of items that ask for them, claims each idempotency record, inserts each
 * message (the queue entry) and its event, and counts usage once per tenant and environment; the
 * tenant never passes a no-overage limit under any concurrency. Returns one outcome per item, in
 * the items' order. A database error undoes the whole batch.
 */
export async function acceptMessages(db: Db, items: readonly AcceptItem[]): Promise<AcceptOutcome[]> {
  const payload = items.map(({ message: m, period, idempotency, eventId, now, checks }) => ({
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
    data: m.data,
    expires_at: m.expiresAt.toISOString(),
    event_id: eventId,
    period,
    now: now.toISOString(),
    idempotency_key: idempotency?.key ?? null,
    request_sha256: idempotency?.requestSha256.toString('hex') ?? null,
    idempotency_expires: idempotency?.expiresAt.toISOString() ?? null,
    run_checks: checks !== undefined,
    default_domain: checks?.defaultDomain ?? null,
  }));
  const { rows } = await sql<{
    idx: number;
    outcome: AcceptOutcome['kind'];
    held_sha256: Buffer | null;
    held_message_id: string | null;
  }>`
    SELECT idx, outcome, held_sha256, held_message_id
      FROM accept_messages(${JSON.stringify(payload)}::jsonb)`.execute(db);
  const outcomes = new Array<AcceptOutcome>(items.length);
  for (const r of rows) {
    outcomes[r.idx] =
      r.outcome === 'idempotency_taken'
        ? {
            kind: r.outcome,
            // request_sha256 is NOT NULL; an empty digest would answer 409, never a replay
            record: {
              requestSha256: r.held_sha256 ? Buffer.from(r.held_sha256) : Buffer.alloc(0),
              messageId: r.held_message_id,
            },
          }
        : { kind: r.outcome };
  }
  // filter() skips holes: an index missing from the rows shows as a shorter list.
  if (outcomes.filter(Boolean).length !== items.length) {
    throw new Error(`accept_messages returned ${rows.length} outcomes for ${items.length} items`);
  }
  return outcomes;
}

/** The custom sending domains that can apply to one environment, oldest first (as readSendContexts). */
export async function findSendingDomains(
  db: Db,
  scope: { tenantId: string; projectId: string; environmentId: string },
): Promise<SendingDomainRow[]> {
  return db
    .selectFrom('sending_domains')
    .select(['domain', 'scope', 'status', 'project_id as projectId', 'environment_id as environmentId'])
    .where('tenant_id', '=', scope.tenantId)
    .where((eb) =>
      eb.or([
        eb('environment_id', '=', scope.environmentId),
        eb.and([eb('scope', '=', 'project'), eb('project_id', '=', scope.projectId)]),
        eb('scope', '=', 'tenant'),
      ]),
    )
    .orderBy('created_at')
    .orderBy('domain')
    .execute();
}
