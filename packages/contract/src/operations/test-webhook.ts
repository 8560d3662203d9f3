// POST /v1/webhooks/test: queues a `webhook.test` event for one endpoint (even a disabled one's
// test is attempted), delivered, signed and retried like any event; its attempts appear in
// POST /v1/webhooks/deliveries/list.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpointId } from './shared/webhook.js';

export const TestWebhookRequest = Type.Object(
  { endpointId: WebhookEndpointId },
  { additionalProperties: false },
);
export type TestWebhookRequest = Static<typeof TestWebhookRequest>;

export const TestWebhookResponse = Type.Object(
  {
    ok: Type.Literal(true),
    eventId: Type.String({ pattern: '^evt_', description: 'the webhook-id the receiver will see' }),
  },
  { additionalProperties: false },
);
export type TestWebhookResponse = Static<typeof TestWebhookResponse>;

export const testWebhook = {
  method: 'POST',
  path: '/v1/webhooks/test',
  sdk: 'webhooks.test',
  summary: 'Send a webhook.test event to an endpoint (extension)',
  body: TestWebhookRequest,
  response: TestWebhookResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'webhook_endpoint_not_found'],
  example: {
    body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId },
    response: { ok: true, eventId: 'evt_01JD0000000000000000000000' },
  },
} as const satisfies Operation;
