// POST /v1/webhooks/get: one webhook endpoint of the key's environment (never its secret).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpoint, WebhookEndpointId } from './shared/webhook.js';

export const GetWebhookRequest = Type.Object(
  { endpointId: WebhookEndpointId },
  { additionalProperties: false },
);
export type GetWebhookRequest = Static<typeof GetWebhookRequest>;

export const GetWebhookResponse = Type.Object(
  { ok: Type.Literal(true), endpoint: WebhookEndpoint },
  { additionalProperties: false },
);
export type GetWebhookResponse = Static<typeof GetWebhookResponse>;

export const getWebhook = {
  method: 'POST',
  path: '/v1/webhooks/get',
  sdk: 'webhooks.get',
  summary: 'One webhook endpoint (extension)',
  body: GetWebhookRequest,
  response: GetWebhookResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'webhook_endpoint_not_found'],
  example: {
    body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId },
    response: { ok: true, endpoint: WEBHOOK_ENDPOINT_EXAMPLE },
  },
} as const satisfies Operation;
