// A parsed report → the message it is about → the change (DESIGN.md §5). Shared by the three
// intakes: mail to `mailsvc inbound`, POST /v1/events/intake and POST /v1/events/ses.
import { gzipSync } from 'node:zlib';
import {
  applyMessageFeedback,
  type FeedbackOutcome,
  findReportedMessage,
} from '../../db/repositories/feedback.js';
import { ULID_PATTERN } from '../../ids.js';
import type { Deps } from '../deps.js';
import { maskEmail } from '../email.js';
import { OUTCOME_POLICY } from '../outcome-policy.js';
import type { FeedbackItem, FeedbackReport } from './types.js';

const MESSAGE_ID = new RegExp(`^msg_${ULID_PATTERN}$`, 'i');
/** A Message-ID of ours as an authenticated relay reports it: `msg_…@domain`, signed or not. */
const MESSAGE_ID_HEADER = new RegExp(`^(msg_${ULID_PATTERN})(?:\\.[0-9a-f]{16})?@([^@\\s]+)$`, 'i');

export interface ReportSource {
  source: 'inbound' | 'intake' | 'ses';
  /** The raw report, kept gzip-compressed as evidence with the event. */
  raw?: Buffer;
  /** The relay intakes are per environment: a report about another environment's message changes nothing. */
  environmentId?: string;
}

export type ReportOutcome =
  | { result: 'no_message' }
  | { result: 'no_finding'; messageId: string }
  | { result: FeedbackOutcome; messageId: string; kind: FeedbackItem['kind']; hard: boolean };

const upper = (id: string) => `msg_${id.slice(4).toUpperCase()}`;

/**
 * The message a report names: a signed reference, then (authenticated intakes only, within their
 * environment) X-Mailsvc-Message-ID, then the original's Message-ID. Mail to `mailsvc inbound`
 * names a message only by a reference whose tag verifies (signed-references.ts).
 */
async function resolveMessage(deps: Pick<Deps, 'db'>, report: FeedbackReport, scope: ReportSource) {
  const candidates: { id: string; domain?: string }[] = [];
  const { signedMessageId, mailsvcMessageId, messageIdHeader } = report.ref;
  if (signedMessageId) candidates.push({ id: signedMessageId });
  if (scope.source !== 'inbound') {
    if (mailsvcMessageId && MESSAGE_ID.test(mailsvcMessageId))
      candidates.push({ id: upper(mailsvcMessageId) });
    const header = messageIdHeader ? MESSAGE_ID_HEADER.exec(messageIdHeader) : null;
    if (header) candidates.push({ id: upper(header[1]!), domain: header[2]!.toLowerCase() });
  }
  for (const c of candidates) {
    const message = await findReportedMessage(deps.db, c.id);
    if (!message) continue;
    // A Message-ID names our message only on the domain we sent it from.
    if (c.domain && c.domain !== message.sendingDomain.toLowerCase()) continue;
    if (scope.environmentId && scope.environmentId !== message.environmentId) continue;
    return message;
  }
  return undefined;
}

/**
 * The findings about the message's own recipient. Our messages have one recipient each; a DSN
 * may list others (a multi-recipient report of a forwarding host). A finding naming nobody, or
 * the only finding of the report, is taken as about our recipient (forwarding rewrites addresses).
 */
function findingsFor(items: FeedbackItem[], toEmail: string): FeedbackItem[] {
  const actionable = items.filter((i) => i.kind !== 'delayed');
  const own = actionable.filter((i) => i.recipient === toEmail.toLowerCase());
  const unnamed = actionable.filter((i) => i.recipient === undefined);
  const chosen = own.length > 0 ? own : unnamed.length > 0 ? unnamed : items.length === 1 ? actionable : [];
  // One finding per kind (a report of a thousand blocks is still one change per kind); of
  // several failures, a hard one.
  const byKind = new Map<FeedbackItem['kind'], FeedbackItem>();
  for (const item of chosen) {
    const seen = byKind.get(item.kind);
    if (!seen || (item.hard && !seen.hard)) byKind.set(item.kind, item);
  }
  return [...byKind.values()];
}

export async function applyFeedbackReport(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  report: FeedbackReport,
  scope: ReportSource,
): Promise<ReportOutcome[]> {
  const message = await resolveMessage(deps, report, scope);
  if (!message) return [{ result: 'no_message' }];
  const findings = findingsFor(report.items, message.toEmail);
  if (findings.length === 0) return [{ result: 'no_finding', messageId: message.id }];
  const rawGzip = scope.raw ? gzipSync(scope.raw) : undefined;
  const outcomes: ReportOutcome[] = [];
  for (const item of findings) {
    if (item.kind === 'delayed') continue;
    const result = await applyMessageFeedback(
      deps.db,
      {
        messageId: message.id,
        kind: item.kind,
        hard: item.hard,
        details: {
          source: scope.source,
          ...(item.status && { enhancedCode: item.status }),
          ...(item.diagnostic && { response: item.diagnostic }),
          ...(item.kind === 'failed' && { hard: item.hard }),
          ...(item.kind === 'failed' && item.reason && { reason: item.reason }),
        },
        evidence: rawGzip ? { source: scope.source, reportType: report.type, rawGzip } : null,
        now: deps.clock.now(),
      },
      OUTCOME_POLICY,
    );
    deps.log.info(
      {
        messageId: message.id,
        to: maskEmail(message.toEmail),
        kind: item.kind,
        hard: item.hard,
        result,
        source: scope.source,
      },
      'feedback report',
    );
    outcomes.push({ result, messageId: message.id, kind: item.kind, hard: item.hard });
  }
  return outcomes;
}
