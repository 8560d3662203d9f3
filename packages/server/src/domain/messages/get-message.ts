// POST /v1/messages/get (extension, DESIGN.md §5): one message of the key's environment — its
// metadata and its event timeline, never content. Another environment's message is not found.
import {
  type GetMessageRequest,
  type GetMessageResponse,
  MESSAGE_EVENT_TYPES,
  type MessageEvent,
} from '@mailsvc/contract/api';
import { listMessageEvents } from '../../db/repositories/messages.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail } from '../email.js';
import { findOwnMessage } from './find-own-message.js';
import { toMessageSummary } from './message-summary.js';

const EVENT_TYPES = new Set<string>(MESSAGE_EVENT_TYPES);

/** The fields of an event's details the timeline shows; anything else stays in the database. */
function toEvent(row: {
  type: string;
  details: Record<string, unknown>;
  created_at: Date;
}): MessageEvent | null {
  if (!EVENT_TYPES.has(row.type)) return null;
  const d = row.details ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
  const event: MessageEvent = { type: row.type as MessageEvent['type'], at: row.created_at.toISOString() };
  const smtpCode = int(d.smtpCode);
  const enhancedCode = str(d.enhancedCode);
  const response = str(d.response);
  const attempt = int(d.attempt);
  const nextAttemptAt = str(d.nextAttemptAt);
  const reason = str(d.reason);
  const scheduledAt = str(d.scheduledAt);
  if (smtpCode !== undefined) event.smtpCode = smtpCode;
  if (enhancedCode !== undefined) event.enhancedCode = enhancedCode;
  if (response !== undefined) event.response = response;
  if (attempt !== undefined && attempt >= 1) event.attempt = attempt;
  if (nextAttemptAt !== undefined) event.nextAttemptAt = nextAttemptAt;
  if (reason !== undefined) event.reason = reason;
  if (scheduledAt !== undefined && !Number.isNaN(Date.parse(scheduledAt)))
    event.scheduledAt = new Date(scheduledAt).toISOString();
  return event;
}

export async function getMessage(
  deps: Deps,
  auth: AuthContext,
  input: GetMessageRequest,
): Promise<Omit<GetMessageResponse, 'ok'>> {
  const row = await findOwnMessage(deps, auth, input.messageId);
  const events = await listMessageEvents(deps.db, row.tenant_id, row.id);
  return {
    message: {
      ...toMessageSummary(row),
      emailMasked: maskEmail(row.to_email),
      category: row.category,
      attempts: row.attempts,
      expiresAt: row.expires_at.toISOString(),
    },
    events: [
      // A bulk send's messages have no accepted event of their own: the job row records it.
      ...(row.bulk_job_id !== null && !events.some((e) => e.type === 'accepted')
        ? [{ type: 'accepted' as const, at: row.created_at.toISOString() }]
        : []),
      ...events.map(toEvent).filter((e): e is MessageEvent => e !== null),
    ],
  };
}
