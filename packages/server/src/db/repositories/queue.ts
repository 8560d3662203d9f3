// The messages table as a queue: claim a batch with FOR UPDATE SKIP LOCKED under a lease, record
// each attempt's outcome in one statement. Every time comes from the caller's clock.
import type { FailureReason, MessageErrorCode } from '@mailsvc/contract/message-errors';
import { sql } from 'kysely';
import type { OutcomePolicy } from '../outcome-policy.js';
import type { RecipientRefusal } from '../recipient-state.js';
import type { CustomFieldValue, Db, MessageStatus, TemplateCategory } from '../schema.js';
import { inTransaction } from '../transaction.js';
import { noteBulkOutcomes } from './bulk.js';
import { recordHardBounce } from './recipients.js';

/** A bulk message's contact, for its {{contact.*}} placeholders (domain/bulk/contact-placeholders.ts). */
export interface PlaceholderContact {
  email: string;
  name: string | null;
  customFields: Record<string, CustomFieldValue>;
}

export interface ClaimedMessage {
  id: string;
  tenantId: string;
  projectId: string;
  environmentId: string;
  templateId: string;
  templateVersion: string;
  category: TemplateCategory;
  /** The priority stored at accept (domain/send/message-policy.ts): the SMTP pool's order. */
  priority: number;
  toEmail: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  sendingDomain: string;
  data: Record<string, unknown> | null;
  attempts: number;
  expiresAt: Date;
  claimToken: string;
  projectName: string;
  /** The tenant's name, for the dev inbox (nothing else uses it); null if its row is gone. */
  tenantName: string | null;
  supportEmail: string | null;
  /** The project's brand (projects.brand_color, logo_url, postal_address). */
  brand: { color: string | null; logoUrl: string | null; postalAddress: string | null };
  environmentName: string;
  /** Why the recipient may not be sent this message now (recipient_refusal() at the claim), or null. */
  recipientRefusal: RecipientRefusal | null;
  /** A bulk message's contact as it is now, for the per-contact placeholders (null otherwise). */
  contact: PlaceholderContact | null;
}

interface ClaimRow {
  id: string;
  tenant_id: string;
  project_id: string;
  environment_id: string;
  template_id: string;
  template_version: string;
  category: TemplateCategory;
  priority: number;
  to_email: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  sending_domain: string;
  data: Record<string, unknown> | null;
  attempts: number;
  expires_at: Date;
  claim_token: string;
  project_name: string;
  tenant_name: string | null;
  support_email: string | null;
  brand_color: string | null;
  logo_url: string | null;
  postal_address: string | null;
  environment_name: string;
  recipient_refusal: RecipientRefusal | null;
  contact: PlaceholderContact | null;
}

/**
 * Messages whose lease ran out (their worker died) first, then due queued/deferred messages in
 * priority order; marked `sending` under a new lease and claim token (db/functions/claim_messages.sql).
 */
export async function claimMessages(
  db: Db,
  q: { now: Date; limit: number; lockedUntil: Date; claimToken: string },
): Promise<ClaimedMessage[]> {
  const { rows } = await sql<ClaimRow>`
    SELECT * FROM claim_messages(${q.now}, ${q.limit}::integer, ${q.lockedUntil}, ${q.claimToken})`.execute(
    db,
  );
  return rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    projectId: r.project_id,
    environmentId: r.environment_id,
    templateId: r.template_id,
    templateVersion: r.template_version,
    category: r.category,
    priority: r.priority,
    toEmail: r.to_email,
    fromEmail: r.from_email,
    fromName: r.from_name,
    replyTo: r.reply_to,
    sendingDomain: r.sending_domain,
    data: r.data,
    attempts: r.attempts,
    expiresAt: r.expires_at,
    claimToken: r.claim_token,
    projectName: r.project_name,
    tenantName: r.tenant_name,
    supportEmail: r.support_email,
    brand: { color: r.brand_color, logoUrl: r.logo_url, postalAddress: r.postal_address },
    environmentName: r.environment_name,
    recipientRefusal: r.recipient_refusal,
    contact: r.contact,
  }));
}

export interface AttemptRecord {
  messageId: string;
  claimToken: string;
  status: Extract<MessageStatus, 'sent' | 'deferred' | 'bounced' | 'failed' | 'suppressed' | 'expired'>;
  /** Whether the transport was called (counts as an attempt). */
  isAttempt: boolean;
  nextAttemptAt: Date | null;
  error: { code: MessageErrorCode; message: string; reason?: FailureReason } | null;
  /** The event recorded with it; its type is the new status unless given ('error': an unexpected throw). */
  event: { id: string; details: Record<string, unknown>; type?: 'error' };
  /** A hard bounce: raise the recipient's count and start (or lengthen) the cooldown. */
  bounce: boolean;
  now: Date;
}

const FINAL = new Set(['sent', 'bounced', 'failed', 'suppressed', 'expired']);

/**
 * Many outcomes in one statement (the worker batches them): each message's new status (template
 * data dropped at a final status) and its event, only where the claim token still matches — a
 * worker whose lease was lost cannot overwrite its successor. Returns, per record, whether it was
 * recorded. Bounces go through recordAttempt, one at a time: two bounces of one address in a
 * single upsert would touch its recipients row twice.
 */
export async function recordAttempts(
  db: Db,
  records: AttemptRecord[],
  policy: OutcomePolicy,
): Promise<boolean[]> {
  return (await recordAttemptOutcomes(db, records, policy)).map((o) => o.recorded);
}

/**
 * Per record: `recorded`, the claim token still matched (the lease was not lost); `applied`, the
 * outcome became the message's status. A report (a relay's delivery event, a fast DSN) may have
 * moved the message on while the attempt was running: then the report's status, error and
 * timeline stand, and the attempt only releases its claim and counts.
 */
async function recordAttemptOutcomes(
  db: Db,
  records: AttemptRecord[],
  policy: OutcomePolicy,
): Promise<{ recorded: boolean; applied: boolean }[]> {
  if (records.some((r) => r.bounce)) throw new Error('recordAttempts does not take bounces');
  const items = records.map((r) => ({
    message_id: r.messageId,
    claim_token: r.claimToken,
    status: r.status,
    attempted: r.isAttempt ? 1 : 0,
    next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
    error: r.error,
    is_final: FINAL.has(r.status),
    event_id: r.event.id,
    event_type: r.event.type ?? null,
    event_details: r.event.details,
    now: r.now.toISOString(),
  }));
  // db/functions/record_attempts.sql
  // One transaction: a bulk message's outcome and its job's guard counts and events commit together.
  const rows = await inTransaction(db, async (trx) => {
    const { rows } = await sql<{ message_id: string; applied: boolean; bulk_job_id: string | null }>`
      SELECT message_id, applied, bulk_job_id FROM record_attempts(${JSON.stringify(items)}::jsonb)`.execute(
      trx,
    );
    await countBulkOutcomes(trx, records, rows, policy, now(records));
    return rows;
  });
  const byId = new Map(rows.map((r) => [r.message_id, r.applied]));
  return records.map((r) => ({ recorded: byId.has(r.messageId), applied: byId.get(r.messageId) === true }));
}

const now = (records: AttemptRecord[]) => records[0]?.now ?? new Date(0);

/** The reputation guard's counts for the bulk messages among recorded outcomes (bulk.ts). */
async function countBulkOutcomes(
  db: Db,
  records: AttemptRecord[],
  rows: { message_id: string; applied: boolean; bulk_job_id: string | null }[],
  policy: OutcomePolicy,
  at: Date,
): Promise<void> {
  const bulk = rows.filter((r) => r.bulk_job_id !== null);
  if (bulk.length === 0) return;
  const byId = new Map(records.map((r) => [r.messageId, r]));
  await noteBulkOutcomes(
    db,
    bulk.map((r) => {
      const record = byId.get(r.message_id)!;
      return {
        jobId: r.bulk_job_id!,
        attempts: record.isAttempt ? 1 : 0,
        hardBounces: r.applied && record.status === 'bounced' ? 1 : 0,
      };
    }),
    policy.bulkGuard,
    at,
  );
}

/**
 * One outcome; for a hard bounce also the recipient's bounce state, in the same transaction, and
 * only when the bounce became the message's status (a report may have counted it already).
 * Returns false when the lease was lost to another worker (then nothing is written).
 */
export async function recordAttempt(db: Db, r: AttemptRecord, policy: OutcomePolicy): Promise<boolean> {
  if (!r.bounce) return (await recordAttempts(db, [r], policy))[0]!;
  return db.transaction().execute(async (trx) => {
    const [outcome] = await recordAttemptOutcomes(trx, [{ ...r, bounce: false }], policy);
    if (outcome!.applied) await recordHardBounce(trx, r.messageId, r.now, policy.bounce);
    return outcome!.recorded;
  });
}

/**
 * Embedded database at start-up: the process holding the PGlite lock is the only worker there can
 * be, so any message still `sending` was claimed by a process that died. Its lease is expired now,
 * so the first claim takes it over instead of waiting out the lease. Returns how many.
 */
export async function releaseAllLeases(db: Db, now: Date): Promise<number> {
  const rows = await db
    .updateTable('messages')
    .set({ locked_until: new Date(now.getTime() - 1) })
    .where('status', '=', 'sending')
    .returning('id')
    .execute();
  return rows.length;
}

/** Keeps the leases of messages still being attempted (one statement for every batch in flight). */
export async function extendLeases(db: Db, claimTokens: string[], lockedUntil: Date): Promise<void> {
  if (claimTokens.length === 0) return;
  await db
    .updateTable('messages')
    .set({ locked_until: lockedUntil })
    .where('status', '=', 'sending')
    .where('claim_token', 'in', claimTokens)
    .execute();
}

/**
 * The DKIM key of a tenant's verified (or degraded: still sending) sending domain: a pending or
 * failed claim signs nothing, and a message of a tenant that lost the name is never signed with
 * the new owner's key.
 */
export async function findDkimKey(db: Db, tenantId: string, domain: string) {
  return db
    .selectFrom('sending_domains')
    .select([
      'domain',
      'dkim_selector as selector',
      'dkim_private_key as privateKeyPem',
      'return_path_status as returnPathStatus',
    ])
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .where('status', 'in', ['verified', 'degraded'])
    .where('dkim_private_key', 'is not', null)
    .executeTakeFirst();
}
