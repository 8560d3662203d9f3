// A message timeline event as the API shows it, from its stored row: POST /v1/messages/get's
// timeline and the message webhooks (webhooks/payload.ts) read the details through this one
// function.
import { MESSAGE_EVENT_TYPES, type MessageEvent } from '@mailsvc/contract/api';

const EVENT_TYPES = new Set<string>(MESSAGE_EVENT_TYPES);

/** The fields of an event's details the timeline shows; anything else stays in the database. */
export function toMessageEvent(row: {
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
