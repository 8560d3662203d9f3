// The payload of a webhook event (DESIGN.md §11): `{type, timestamp, data}` built from the event as
// stored when it occurred (webhook_events.data), so a retry or a replay sends the same meaning.
// The one home of the public shape of each type's data (@mailsvc/contract's WEBHOOK_EVENT_DATA):
// message events are told from their timeline event the way POST /v1/messages/get tells them, a
// diagnostic has every address but the recipient's masked, and template data or content never
// appear (they are never stored with the event).
import { WEBHOOK_EVENT_DATA, type WebhookEvent, type WebhookEventType } from '@mailsvc/contract/api';
import { maskEmail } from '../domain/email.js';
import { toMessageEvent } from '../domain/messages/message-event.js';

export interface StoredWebhookEvent {
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The message status each message event type reports. */
const STATUS: Record<string, string> = {
  'message.sent': 'sent',
  'message.delivery_delayed': 'deferred',
  'message.delivered': 'delivered',
  'message.bounced': 'bounced',
  'message.failed': 'failed',
  'message.expired': 'expired',
  'message.suppressed': 'suppressed',
  'message.complained': 'complained',
  'message.canceled': 'canceled',
};

const ADDRESS = /[^\s<>()[\]"',;:@]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** A reply or report's words with every address but the recipient's masked. */
export function cleanDiagnostic(text: string, recipient: string): string {
  const own = recipient.toLowerCase();
  return text.replace(ADDRESS, (a) => (a.toLowerCase() === own ? a : maskEmail(a)));
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function messageData(type: string, d: Record<string, unknown>): Record<string, unknown> {
  const to = str(d.to) ?? '';
  const timeline = toMessageEvent({
    type: str(d.timelineType) ?? '',
    details: (d.details as Record<string, unknown>) ?? {},
    created_at: new Date(str(d.occurredAt) ?? 0),
  });
  const data: Record<string, unknown> = {
    messageId: d.messageId,
    templateId: d.templateId,
    templateVersion: d.templateVersion,
    to,
    toMasked: maskEmail(to),
    status: STATUS[type],
    metadata: d.metadata ?? {},
    ...(typeof d.bulkJobId === 'string' && { bulkJobId: d.bulkJobId }),
    occurredAt: new Date(str(d.occurredAt) ?? 0).toISOString(),
  };
  // the fields the contract gives this type's data
  const has = (k: string) => k in WEBHOOK_EVENT_DATA[type as WebhookEventType].properties;
  if (timeline?.smtpCode !== undefined && has('smtpCode')) data.smtpCode = timeline.smtpCode;
  if (timeline?.enhancedCode !== undefined && has('enhancedCode')) data.enhancedCode = timeline.enhancedCode;
  if (timeline?.response !== undefined && has('diagnostic'))
    data.diagnostic = cleanDiagnostic(timeline.response, to);
  if (timeline?.reason !== undefined && has('reason')) data.reason = timeline.reason;
  if (has('attempt')) data.attempt = timeline?.attempt ?? 1;
  if (timeline?.nextAttemptAt !== undefined && has('nextAttemptAt'))
    data.nextAttemptAt = timeline.nextAttemptAt;
  if (type === 'message.bounced') data.bounceType = 'hard';
  return data;
}

/** The payload of a stored event. */
export function webhookPayload(event: StoredWebhookEvent): WebhookEvent {
  const data =
    event.type in STATUS
      ? messageData(event.type, event.data)
      : event.type.startsWith('recipient.')
        ? { ...event.data, emailMasked: maskEmail(str(event.data.email) ?? '') }
        : event.data;
  return {
    type: event.type as WebhookEventType,
    timestamp: event.createdAt.toISOString(),
    data,
  } as WebhookEvent;
}
