// The accept of POST /v1/send (one statement for a batch of sends, with the checks that need the
// database, answering the first refusal itself) and step 7 on its own (choose_sending_domain()).
import { sql } from 'kysely';
import type { RecipientRefusal } from '../recipient-state.js';
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

/** Step 7's refusals, in that order (db/functions/choose_sending_domain.sql). */
export type DomainRefusal = 'sending_domain_not_ready' | 'from_domain_not_allowed';

/** choose_sending_domain()'s answer: the domain a send goes out from, its From, its verdict. */
export interface SendingDomainChoice {
  sendingDomain: string;
  fromEmail: string;
  refusal: DomainRefusal | null;
}

export interface SendingDomainQuery {
  tenantId: string;
  projectId: string;
  environmentId: string;
  /** The explicit or configured From; null for notifications@ the domain chosen. */
  fromEmail: string | null;
  /** MAILSVC_DEFAULT_SENDING_DOMAIN, when no custom domain applies. */
  defaultDomain: string;
}

/**
 * Step 7 on its own (a bulk send's job, and the answer of a send whose environment is paused):
 * choose_sending_domain(), the one home of the rule; and, with a key, the live record of an
 * Idempotency-Key (step 3), in the same round trip.
 */
export async function chooseSendingDomain(
  db: Db,
  q: SendingDomainQuery & { idempotencyKey?: string | undefined; now?: Date },
): Promise<SendingDomainChoice & { idempotency: IdempotencyRecord | undefined }> {
  const { rows } = await sql<{
    sending_domain: string;
    from_email: string;
    refusal: DomainRefusal | null;
    request_sha256: Buffer | null;
    message_id: string | null;
  }>`
    SELECT d.sending_domain, d.from_email, d.refusal, i.request_sha256, i.message_id
      FROM choose_sending_domain(${q.tenantId}, ${q.projectId}, ${q.environmentId}, ${q.fromEmail},
                                 ${q.defaultDomain}) d
      LEFT JOIN idempotency_keys i
        ON i.environment_id = ${q.environmentId} AND i.key = ${q.idempotencyKey ?? null}
       AND i.expires_at > ${q.now ?? new Date(0)}`.execute(db);
  const row = rows[0]!;
  return {
    sendingDomain: row.sending_domain,
    fromEmail: row.from_email,
    refusal: row.refusal,
    idempotency: row.request_sha256
      ? { requestSha256: Buffer.from(row.request_sha256), messageId: row.message_id }
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
  /** The explicit or configured From, or null for notifications@ the domain chosen. */
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
  data: Record<string, unknown>;
  /** The send's metadata; null without. */
  metadata: Record<string, string> | null;
  /** When a scheduled send falls due (status `scheduled` until then); null: queued now. */
  scheduledAt: Date | null;
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
  /** The first check of steps 7 and 9 that refuses the send; sendingDomain is the domain chosen. */
  | { kind: 'refused'; refusal: DomainRefusal | RecipientRefusal; sendingDomain: string }
  /** A live record holds this Idempotency-Key (committed first, or an earlier send of the batch). */
  | { kind: 'idempotency_taken'; record: IdempotencyRecord };

/** One send to accept, as accept_messages() takes it (db/functions/accept_messages.sql). */
export interface AcceptItem {
  message: AcceptedMessage;
  period: string;
  idempotency?: { key: string; requestSha256: Buffer; expiresAt: Date };
  eventId: string;
  now: Date;
  /** MAILSVC_DEFAULT_SENDING_DOMAIN, for choose_sending_domain() (step 7). */
  defaultDomain: string;
}

/**
 * One statement, so one round trip and one transaction for a whole batch: accept_messages()
 * (db/functions/accept_messages.sql) replays live idempotency records, runs the sending-domain and
 * recipient checks (answering the first refusal's code), claims each idempotency record, inserts each
 * message (the queue entry) and its event, and counts usage once per tenant and environment; the
 * tenant never passes a no-overage limit under any concurrency. Returns one outcome per item, in
 * the items' order. A database error undoes the whole batch.
 */
export async function acceptMessages(db: Db, items: readonly AcceptItem[]): Promise<AcceptOutcome[]> {
  const payload = items.map(({ message: m, period, idempotency, eventId, now, defaultDomain }) => ({
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
    data: m.data,
    metadata: m.metadata,
    expires_at: m.expiresAt.toISOString(),
    scheduled_at: m.scheduledAt?.toISOString() ?? null,
    event_id: eventId,
    period,
    now: now.toISOString(),
    idempotency_key: idempotency?.key ?? null,
    request_sha256: idempotency?.requestSha256.toString('hex') ?? null,
    idempotency_expires: idempotency?.expiresAt.toISOString() ?? null,
    default_domain: defaultDomain,
  }));
  const { rows } = await sql<{
    idx: number;
    outcome: AcceptOutcome['kind'];
    refusal: DomainRefusal | RecipientRefusal | null;
    sending_domain: string | null;
    held_sha256: Buffer | null;
    held_message_id: string | null;
  }>`
    SELECT idx, outcome, refusal, sending_domain, held_sha256, held_message_id
      FROM accept_messages(${JSON.stringify(payload)}::jsonb)`.execute(db);
  const outcomes = new Array<AcceptOutcome>(items.length);
  for (const r of rows) {
    outcomes[r.idx] = toAcceptOutcome(r);
  }
  // filter() skips holes: an index missing from the rows shows as a shorter list.
  if (outcomes.filter(Boolean).length !== items.length) {
    throw new Error(`accept_messages returned ${rows.length} outcomes for ${items.length} items`);
  }
  return outcomes;
}

function toAcceptOutcome(r: {
  outcome: AcceptOutcome['kind'];
  refusal: DomainRefusal | RecipientRefusal | null;
  sending_domain: string | null;
  held_sha256: Buffer | null;
  held_message_id: string | null;
}): AcceptOutcome {
  switch (r.outcome) {
    case 'idempotency_taken':
      return {
        kind: r.outcome,
        // request_sha256 is NOT NULL; an empty digest would answer 409, never a replay
        record: {
          requestSha256: r.held_sha256 ? Buffer.from(r.held_sha256) : Buffer.alloc(0),
          messageId: r.held_message_id,
        },
      };
    case 'refused':
      return { kind: r.outcome, refusal: r.refusal!, sendingDomain: r.sending_domain! };
    default:
      return { kind: r.outcome };
  }
}
