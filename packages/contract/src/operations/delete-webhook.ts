// POST /v1/webhooks/delete: removes an endpoint with its pending deliveries and attempt log.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpointId } from './shared/webhook.js';

export const DeleteWebhookRequest = Type.Object(
  { endpointId: WebhookEndpointId },
  { additionalProperties: false },
);
export type DeleteWebhookRequest = Static<typeof DeleteWebhookRequest>;

export const DeleteWebhookResponse = Type.Object({ ok: Type.Literal(true) }, { additionalProperties: false });
export type DeleteWebhookResponse = Static<typeof DeleteWebhookResponse>;

export const deleteWebhook = {
  method: 'POST',
  path: '/v1/webhooks/delete',
  sdk: 'webhooks.delete',
  summary: 'Delete a webhook endpoint (extension)',
  body: DeleteWebhookRequest,
  response: DeleteWebhookResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'webhook_endpoint_not_found'],
  example: { body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId }, response: { ok: true } },
} as const satisfies Operation;
