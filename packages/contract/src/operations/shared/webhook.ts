// Outbound webhooks (DESIGN.md §11): the event types an endpoint can subscribe to, an endpoint as
// the API shows it, and each event's payload (Standard Webhooks: `{type, timestamp, data}`). The
// payload schemas are published in the OpenAPI document's `webhooks` section and typed for the
// SDK's verifyWebhook(). Browser-safe.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { METADATA_VALUE_PATTERN, Metadata } from './metadata.js';
import { Timestamp } from './timestamp.js';

/** Every event type, in the order docs/webhooks.md lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.delivery_delayed',
  'message.delivered',
  'message.bounced',
  'message.failed',
  'message.expired',
  'message.suppressed',
  'message.complained',
  'message.canceled',
  'recipient.unsubscribed',
  'recipient.resubscribed',
  'recipient.suppressed',
  'recipient.unsuppressed',
  'bulk_send.completed',
  'bulk_send.paused',
  'domain.verified',
  'domain.degraded',
  'domain.failed',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** At most this many endpoints per environment. */
export const WEBHOOK_ENDPOINTS_MAX = 20;

export const WebhookEventTypeSchema = Type.Unsafe<WebhookEventType>({
  type: 'string',
  enum: [...WEBHOOK_EVENT_TYPES],
  description: 'an event type (docs/webhooks.md)',
});

export { WebhookEndpointId } from './ids.js';

export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'where events are POSTed: https, a public host (http and private addresses only where the operator allows them)',
});

export const WebhookEvents = Type.Array(WebhookEventTypeSchema, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'the event types sent to the endpoint; absent or null: every type',
});

export const WebhookRateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Null()], {
  description:
    'at most this many deliveries started per second to the endpoint, across every worker (1–1000); null: no cap beside the 8 in flight',
});

export const WebhookDescription = Type.String({
  maxLength: 200,
  pattern: METADATA_VALUE_PATTERN,
  description: 'a note for people: at most 200 characters, no control characters or line separators',
});

export const WebhookEndpoint = Type.Object(
  {
    endpointId: Type.String({ pattern: '^whe_' }),
    url: Type.String(),
    events: Type.Union([Type.Array(WebhookEventTypeSchema), Type.Null()], {
      description: 'the subscribed types; null: every type',
    }),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    rateLimitPerSecond: Type.Union([Type.Integer(), Type.Null()], {
      description: 'deliveries started per second at most; null: no cap',
    }),
    disabledReason: Type.Union(
      [Type.Literal('manual'), Type.Literal('gone'), Type.Literal('failing'), Type.Null()],
      {
        description:
          'why it is disabled: manual (by the app), gone (it answered 410), failing (every delivery failed for 5 days); null while enabled',
      },
    ),
    createdAt: Timestamp,
    updatedAt: {
      ...Timestamp,
      description: `${Timestamp.description}: its last change (its settings, its secret, its being disabled or enabled, its deliveries beginning or ceasing to fail; not every delivery)`,
    },
  },
  { additionalProperties: false },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WEBHOOK_ENDPOINT_EXAMPLE: WebhookEndpoint = {
  endpointId: 'whe_01JD0000000000000000000000',
  url: 'https://app.example.com/hooks/mailsvc',
  events: ['message.bounced', 'message.complained'],
  description: 'bounces and complaints',
  enabled: true,
  rateLimitPerSecond: null,
  disabledReason: null,
  createdAt: '2026-11-22T10:15:30.123Z',
  updatedAt: '2026-11-22T10:15:30.123Z',
};

/** The fields of every message.* event's data. */
const MessageEventFields = {
  messageId: Type.String({ pattern: '^msg_' }),
  templateId: Type.String(),
  templateVersion: Type.String(),
  to: Type.String({ description: 'the recipient, in full (the app owns the address)' }),
  toMasked: Type.String({ description: 'the recipient masked, for logs' }),
  status: Type.String({ description: 'the message’s status this event set' }),
  metadata: Metadata,
  bulkJobId: Type.Optional(Type.String()),
  occurredAt: Timestamp,
};

/** What an SMTP reply or a report said, for the events that carry one. */
const SmtpFields = {
  smtpCode: Type.Optional(Type.Integer({ description: 'the SMTP reply code' })),
  enhancedCode: Type.Optional(Type.String({ description: 'RFC 3463 status, e.g. 5.1.1' })),
  diagnostic: Type.Optional(
    Type.String({
      description: 'the reply or the report’s diagnostic, addresses other than the recipient’s masked',
    }),
  ),
  reason: Type.Optional(
    Type.String({ description: 'the reason in the one failure vocabulary (docs/feedback.md)' }),
  ),
};

const RecipientEventData = Type.Object(
  {
    email: Type.String(),
    emailMasked: Type.String(),
    reason: Type.Optional(
      Type.String({ description: 'suppressed/unsuppressed: manual, hard_bounce or complaint' }),
    ),
    until: Type.Optional(
      Type.Union([Timestamp, Type.Null()], { description: 'a suppression’s end, if it has one' }),
    ),
    occurredAt: Timestamp,
  },
  { additionalProperties: false },
);

const BulkSendEventData = Type.Object(
  {
    bulkJobId: Type.String(),
    templateId: Type.String(),
    status: Type.String(),
    reason: Type.Optional(Type.String({ description: 'paused: why the reputation guard paused it' })),
    metadata: Metadata,
    occurredAt: Timestamp,
  },
  { additionalProperties: false },
);

const DomainEventData = Type.Object(
  {
    domainId: Type.String({ pattern: '^dom_' }),
    domain: Type.String(),
    status: Type.String({ description: 'the status this event set: verified, degraded or failed' }),
    previousStatus: Type.String(),
    records: Type.Array(
      Type.Object(
        {
          purpose: Type.String(),
          host: Type.String(),
          type: Type.String(),
          state: Type.String({ description: 'missing, wrong or unknown' }),
          problems: Type.Array(Type.String({ description: 'a problem code (docs/domains.md)' })),
        },
        { additionalProperties: false },
      ),
      { description: 'the required records that are not verified (empty for domain.verified)' },
    ),
    occurredAt: Timestamp,
  },
  { additionalProperties: false },
);

const messageData = (extra: Record<string, TSchema> = {}) =>
  Type.Object({ ...MessageEventFields, ...extra }, { additionalProperties: false });

/** Each type's `data`. */
export const WEBHOOK_EVENT_DATA = {
  'message.sent': messageData({ smtpCode: SmtpFields.smtpCode, diagnostic: SmtpFields.diagnostic }),
  'message.delivery_delayed': messageData({
    ...SmtpFields,
    attempt: Type.Integer({ minimum: 1 }),
    nextAttemptAt: Type.Optional(Timestamp),
  }),
  'message.delivered': messageData({ diagnostic: SmtpFields.diagnostic }),
  'message.bounced': messageData({
    ...SmtpFields,
    bounceType: Type.Literal('hard', {
      description: 'always hard: a soft bounce is a message.delivery_delayed, retried',
    }),
  }),
  'message.failed': messageData(SmtpFields),
  'message.expired': messageData({ reason: SmtpFields.reason }),
  'message.suppressed': messageData({ reason: SmtpFields.reason }),
  'message.complained': messageData({ diagnostic: SmtpFields.diagnostic }),
  'message.canceled': messageData(),
  'recipient.unsubscribed': RecipientEventData,
  'recipient.resubscribed': RecipientEventData,
  'recipient.suppressed': RecipientEventData,
  'recipient.unsuppressed': RecipientEventData,
  'bulk_send.completed': BulkSendEventData,
  'bulk_send.paused': BulkSendEventData,
  'domain.verified': DomainEventData,
  'domain.degraded': DomainEventData,
  'domain.failed': DomainEventData,
  'webhook.test': Type.Object(
    { endpointId: Type.String(), message: Type.String(), occurredAt: Timestamp },
    { additionalProperties: false },
  ),
} as const satisfies Record<WebhookEventType, TSchema>;

/** One event's payload schema: `{type, timestamp, data}`. */
export const webhookPayloadSchema = <T extends WebhookEventType>(type: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Timestamp,
      data: WEBHOOK_EVENT_DATA[type],
    },
    { additionalProperties: false, title: type },
  );

/** The payload of any event, discriminated by `type` (what verifyWebhook() returns). */
export type WebhookEvent = {
  [T in WebhookEventType]: { type: T; timestamp: string; data: Static<(typeof WEBHOOK_EVENT_DATA)[T]> };
}[WebhookEventType];
