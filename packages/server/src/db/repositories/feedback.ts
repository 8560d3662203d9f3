// What a report does to a message and its recipient (DESIGN.md §5), in one transaction with the
// message row locked. Reports arrive duplicated and out of order (a relay retries; a delivery
// notice can follow a bounce): statuses are ranked so a later, lower-ranked event never
// overwrites a higher one, and each kind of finding counts against the recipient once per
// message, whatever the order — every permutation ends in the same state.
import { isFailureReason } from '@mailsvc/contract/message-errors';
import { sql } from 'kysely';
import { newId } from '../../ids.js';
import type { OutcomePolicy } from '../outcome-policy.js';
import type { Db, MessageStatus } from '../schema.js';
import { noteBulkOutcomes } from './bulk.js';
import { complainRecipient, recordHardBounce } from './recipients.js';

/**
 * The ranking: a later finding never moves a message down. A hard bounce outranks a soft failure
 * (a relay's vague permanent failure, then the DSN naming 5.1.1: the recipient's bounce counts
 * whichever came first). Only a ranked status can be reported on: the message was (maybe) handed
 * over. A deferred or expired message may have arrived after all (an attempt whose answer was
 * lost is retried: at-least-once), so a report about that copy still counts; a queued,
 * suppressed or canceled one was never sent.
 */
const RANK: Partial<Record<MessageStatus, number>> = {
  sending: 1,
  sent: 1,
  deferred: 1,
  expired: 1,
  delivered: 2,
  failed: 3,
  bounced: 4,
  complained: 5,
};

export interface FeedbackChange {
  messageId: string;
  kind: 'delivered' | 'failed' | 'complained';
  hard: boolean;
  /** Shown in the timeline: enhancedCode, response (the diagnostic); kept: source, reportId. */
  details: Record<string, unknown>;
  evidence: { source: 'inbound' | 'intake' | 'ses'; reportType: string; rawGzip: Buffer } | null;
  now: Date;
}

export type FeedbackOutcome = 'applied' | 'duplicate' | 'not_reportable' | 'unknown_message';

/**
 * Event types that already record this finding for a message: each counts once. A soft failure
 * after a hard bounce adds nothing; a hard bounce after a soft failure still counts.
 */
function sameFinding(c: Pick<FeedbackChange, 'kind' | 'hard'>): string[] {
  if (c.kind === 'failed') return c.hard ? ['bounced'] : ['bounced', 'failed'];
  return [c.kind];
}

export async function applyMessageFeedback(
  db: Db,
  c: FeedbackChange,
  policy: OutcomePolicy,
): Promise<FeedbackOutcome> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ tenant_id: string; status: MessageStatus; bulk_job_id: string | null }>`
      SELECT tenant_id, status, bulk_job_id FROM messages WHERE id = ${c.messageId} FOR UPDATE`.execute(trx);
    const message = rows[0];
    if (!message) return 'unknown_message';
    if (RANK[message.status] === undefined) return 'not_reportable';
    const seen = await trx
      .selectFrom('message_events')
      .select('id')
      .where('message_id', '=', c.messageId)
      .where('type', 'in', sameFinding(c))
      .limit(1)
      .executeTakeFirst();
    if (seen) return 'duplicate';

    const target: MessageStatus = c.kind === 'failed' ? (c.hard ? 'bounced' : 'failed') : c.kind;
    const status = (RANK[target] ?? 0) > (RANK[message.status] ?? 0) ? target : message.status;
    const error = failureError(c);
    await trx
      .updateTable('messages')
      .set({
        status,
        updated_at: c.now,
        ...(c.kind === 'delivered' && { delivered_at: c.now }),
        ...(error && status === target && { last_error: JSON.stringify(error) }),
        // Every status a report leaves is final: the template data is not needed any more.
        ...(status !== message.status && { data: null }),
      })
      .where('id', '=', c.messageId)
      .execute();
    const reportId = await insertEvidence(trx, c, message.tenant_id);
    await trx
      .insertInto('message_events')
      .values({
        id: newId('evt', c.now.getTime()),
        message_id: c.messageId,
        tenant_id: message.tenant_id,
        type: target,
        details: JSON.stringify({ ...c.details, ...(reportId && { reportId }) }),
        created_at: c.now,
      })
      .execute();
    await countAgainstRecipient(trx, c, message.bulk_job_id, policy);
    return 'applied';
  });
}

/** The message's last_error for a failure report; null for other reports. */
function failureError(c: FeedbackChange) {
  if (c.kind !== 'failed') return null;
  const reason = c.details.reason;
  return {
    ...(isFailureReason(reason) && { reason }),
    code: c.hard ? ('hard_bounce' as const) : ('rejected' as const),
    message:
      typeof c.details.response === 'string'
        ? c.details.response
        : `The receiving system gave up${c.details.enhancedCode ? ` (${c.details.enhancedCode})` : ''}.`,
  };
}

/** Keeps the raw report behind the change; its id, for the event, or undefined without one. */
async function insertEvidence(trx: Db, c: FeedbackChange, tenantId: string): Promise<string | undefined> {
  if (!c.evidence) return undefined;
  const reportId = newId('frp', c.now.getTime());
  await trx
    .insertInto('feedback_reports')
    .values({
      id: reportId,
      message_id: c.messageId,
      tenant_id: tenantId,
      source: c.evidence.source,
      report_type: c.evidence.reportType,
      raw_gzip: c.evidence.rawGzip,
      created_at: c.now,
    })
    .execute();
  return reportId;
}

/** A hard bounce (and its bulk job's guard) or a complaint, recorded against the recipient. */
async function countAgainstRecipient(
  trx: Db,
  c: FeedbackChange,
  bulkJobId: string | null,
  policy: OutcomePolicy,
): Promise<void> {
  if (c.kind === 'failed' && c.hard) {
    await recordHardBounce(trx, c.messageId, c.now, policy.bounce);
    if (bulkJobId !== null) {
      await noteBulkOutcomes(
        trx,
        [{ jobId: bulkJobId, attempts: 0, hardBounces: 1 }],
        policy.bulkGuard,
        c.now,
      );
    }
  }
  if (c.kind === 'complained') await complainRecipient(trx, c.messageId, c.now);
}

/** Whether mail to this domain is ours to read: a verified sending domain's bounces.<domain>. */
export async function isVerifiedSendingDomain(db: Db, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom('sending_domains')
    .select('id')
    .where('domain', '=', domain)
    // degraded still signs and sends with its return path: its bounces must come back
    .where('status', 'in', ['verified', 'degraded'])
    .executeTakeFirst();
  return row !== undefined;
}

/** A message by id with what a report needs to be matched against it. */
export async function findReportedMessage(db: Db, messageId: string) {
  return db
    .selectFrom('messages')
    .select([
      'id',
      'environment_id as environmentId',
      'to_email as toEmail',
      'sending_domain as sendingDomain',
    ])
    .where('id', '=', messageId)
    .executeTakeFirst();
}
