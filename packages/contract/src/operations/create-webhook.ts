// POST /v1/webhooks/create: a webhook endpoint of the key's environment (DESIGN.md §11). The
// answer holds the endpoint's signing secret, the only time it is shown.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import {
  WEBHOOK_ENDPOINT_EXAMPLE,
  WebhookDescription,
  WebhookEndpoint,
  WebhookEvents,
  WebhookRateLimit,
  WebhookUrl,
} from './shared/webhook.js';

export const WebhookSecret = Type.String({
  pattern: '^whsec_',
  description:
    'the Standard Webhooks signing secret (whsec_ + base64 of 32 bytes); shown only here and by rotate-secret',
});

export const CreateWebhookRequest = Type.Object(
  {
    url: WebhookUrl,
    events: Type.Optional(Type.Union([WebhookEvents, Type.Null()])),
    description: Type.Optional(WebhookDescription),
    enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
    rateLimitPerSecond: Type.Optional(WebhookRateLimit),
  },
  { additionalProperties: false },
);
export type CreateWebhookRequest = Static<typeof CreateWebhookRequest>;

export const CreateWebhookResponse = Type.Object(
  { ok: Type.Literal(true), endpoint: WebhookEndpoint, secret: WebhookSecret },
  { additionalProperties: false },
);
export type CreateWebhookResponse = Static<typeof CreateWebhookResponse>;

export const WEBHOOK_SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const createWebhook = {
  method: 'POST',
  path: '/v1/webhooks/create',
  sdk: 'webhooks.create',
  summary: 'Create a webhook endpoint (extension)',
  body: CreateWebhookRequest,
  response: CreateWebhookResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'webhook_url_not_allowed',
    'webhook_endpoint_limit',
  ],
  example: {
    body: {
      url: WEBHOOK_ENDPOINT_EXAMPLE.url,
      events: WEBHOOK_ENDPOINT_EXAMPLE.events,
      description: 'bounces and complaints',
    },
    response: { ok: true, endpoint: WEBHOOK_ENDPOINT_EXAMPLE, secret: WEBHOOK_SECRET_EXAMPLE },
  },
} as const satisfies Operation;
