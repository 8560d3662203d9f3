// POST /v1/webhooks/deliveries/list: the attempts to deliver events to the environment's
// endpoints, newest first, a page at a time (DESIGN.md §11): each with the receiver's status,
// the first 4 KB of its answer and the latency, kept 30 days.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { EventId } from './shared/ids.js';
import { CreatedAfter, CreatedBefore, ListCursor, NextCursor, PageSize } from './shared/list-fields.js';
import type { Operation } from './shared/operation.js';
import { NullableTimestamp, Timestamp } from './shared/timestamp.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpointId, WebhookEventTypeSchema } from './shared/webhook.js';

export const WEBHOOK_ATTEMPT_PAGE_SIZE_DEFAULT = 50;
export const WEBHOOK_ATTEMPT_PAGE_SIZE_MAX = 100;
/** How long attempts are kept. */
export const WEBHOOK_ATTEMPT_RETENTION_DAYS = 30;

const Outcome = Type.Unsafe<'succeeded' | 'failed'>({
  type: 'string',
  enum: ['succeeded', 'failed'],
  description: 'succeeded: the receiver answered 2xx',
});

export const WebhookAttempt = Type.Object(
  {
    attemptId: Type.String({ pattern: '^wha_' }),
    endpointId: Type.String(),
    eventId: Type.String({ pattern: '^evt_', description: 'the webhook-id sent' }),
    eventType: WebhookEventTypeSchema,
    attempt: Type.Integer({ minimum: 1, description: 'the number of this attempt of the delivery' }),
    outcome: Outcome,
    statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no answer came' }),
    responseBody: Type.String({ description: 'the first 4 KB of the answer' }),
    latencyMs: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'why the attempt failed without a 2xx: timeout, a refused address, a redirect, …',
    }),
    nextAttemptAt: Type.Union([NullableTimestamp], {
      description: 'the retry this failure scheduled, if any',
    }),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);
export type WebhookAttempt = Static<typeof WebhookAttempt>;

export const ListWebhookDeliveriesRequest = Type.Object(
  {
    endpointId: Type.Optional(WebhookEndpointId),
    eventType: Type.Optional(WebhookEventTypeSchema),
    eventId: Type.Optional(EventId),
    messageId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'msg_…: the attempts of this message’s events',
      }),
    ),
    outcome: Type.Optional(Outcome),
    createdAfter: CreatedAfter('attempted'),
    createdBefore: CreatedBefore('attempted'),
    pageSize: PageSize(WEBHOOK_ATTEMPT_PAGE_SIZE_DEFAULT, WEBHOOK_ATTEMPT_PAGE_SIZE_MAX),
    cursor: ListCursor(600),
  },
  { additionalProperties: false },
);
export type ListWebhookDeliveriesRequest = Static<typeof ListWebhookDeliveriesRequest>;

export const ListWebhookDeliveriesResponse = Type.Object(
  {
    ok: Type.Literal(true),
    attempts: Type.Array(WebhookAttempt, { description: 'newest first' }),
    nextCursor: NextCursor,
  },
  { additionalProperties: false },
);
export type ListWebhookDeliveriesResponse = Static<typeof ListWebhookDeliveriesResponse>;

export const listWebhookDeliveries = {
  method: 'POST',
  path: '/v1/webhooks/deliveries/list',
  sdk: 'webhooks.deliveries.list',
  summary: 'Attempts to deliver webhook events, newest first (extension)',
  body: ListWebhookDeliveriesRequest,
  response: ListWebhookDeliveriesResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId, outcome: 'failed' },
    response: {
      ok: true,
      attempts: [
        {
          attemptId: 'wha_01JD0000000000000000000000',
          endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId,
          eventId: 'evt_01JD0000000000000000000000',
          eventType: 'message.bounced',
          attempt: 2,
          outcome: 'failed',
          statusCode: 503,
          responseBody: 'upstream unavailable',
          latencyMs: 41,
          error: null,
          nextAttemptAt: '2026-11-22T10:50:30.123Z',
          createdAt: '2026-11-22T10:20:30.123Z',
        },
      ],
      nextCursor: null,
    },
  },
} as const satisfies Operation;
