// POST /v1/webhooks/deliveries/replay: sends events again as new deliveries with the same
// webhook-id: one event (to every endpoint it went to, or to one), or every event whose delivery
// to an endpoint failed for good within a time range.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { EventId } from './shared/ids.js';
import { CreatedAfter, CreatedBefore } from './shared/list-fields.js';
import type { Operation } from './shared/operation.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpointId } from './shared/webhook.js';

/** At most this many deliveries are queued by one replay of a range. */
export const WEBHOOK_REPLAY_MAX = 10_000;

export const ReplayWebhookDeliveriesRequest = Type.Object(
  {
    eventId: Type.Optional(EventId),
    endpointId: Type.Optional(WebhookEndpointId),
    createdAfter: CreatedAfter('events that occurred'),
    createdBefore: CreatedBefore('events that occurred'),
  },
  { additionalProperties: false },
);
export type ReplayWebhookDeliveriesRequest = Static<typeof ReplayWebhookDeliveriesRequest>;

export const ReplayWebhookDeliveriesResponse = Type.Object(
  {
    ok: Type.Literal(true),
    queued: Type.Integer({ minimum: 0, description: `deliveries queued (at most ${WEBHOOK_REPLAY_MAX})` }),
  },
  { additionalProperties: false },
);
export type ReplayWebhookDeliveriesResponse = Static<typeof ReplayWebhookDeliveriesResponse>;

export const replayWebhookDeliveries = {
  method: 'POST',
  path: '/v1/webhooks/deliveries/replay',
  sdk: 'webhooks.deliveries.replay',
  summary: 'Deliver webhook events again (extension)',
  body: ReplayWebhookDeliveriesRequest,
  response: ReplayWebhookDeliveriesResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'webhook_endpoint_not_found',
    'webhook_event_not_found',
  ],
  bodyRules: { anyOf: [{ required: ['eventId'] }, { required: ['endpointId'] }] },
  example: {
    body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId, createdAfter: '2026-11-22T00:00:00.000Z' },
    response: { ok: true, queued: 12 },
  },
} as const satisfies Operation;
