// POST /v1/webhooks/update: changes an endpoint's URL, event types, description, enabled flag or
// rate cap.
// Enabling an endpoint that was disabled (by the app, a 410 or 5 days of failures) resumes its
// deliveries where they stopped.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import {
  WEBHOOK_ENDPOINT_EXAMPLE,
  WebhookDescription,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEvents,
  WebhookRateLimit,
  WebhookUrl,
} from './shared/webhook.js';

export const UpdateWebhookRequest = Type.Object(
  {
    endpointId: WebhookEndpointId,
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(Type.Union([WebhookEvents, Type.Null()])),
    description: Type.Optional(Type.Union([WebhookDescription, Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
    rateLimitPerSecond: Type.Optional(WebhookRateLimit),
  },
  { additionalProperties: false },
);
export type UpdateWebhookRequest = Static<typeof UpdateWebhookRequest>;

export const UpdateWebhookResponse = Type.Object(
  { ok: Type.Literal(true), endpoint: WebhookEndpoint },
  { additionalProperties: false },
);
export type UpdateWebhookResponse = Static<typeof UpdateWebhookResponse>;

export const updateWebhook = {
  method: 'POST',
  path: '/v1/webhooks/update',
  sdk: 'webhooks.update',
  summary: 'Change a webhook endpoint (extension)',
  body: UpdateWebhookRequest,
  response: UpdateWebhookResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'webhook_endpoint_not_found',
    'webhook_url_not_allowed',
  ],
  example: {
    body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId, enabled: true },
    response: { ok: true, endpoint: WEBHOOK_ENDPOINT_EXAMPLE },
  },
} as const satisfies Operation;
