// POST /v1/webhooks/rotate-secret: a new signing secret for an endpoint. For 24 hours every
// delivery is signed with both the new and the old secret (two signatures in webhook-signature),
// so the receiver can switch over without dropping events.
import { type Static, Type } from '@sinclair/typebox';
import { WEBHOOK_SECRET_EXAMPLE, WebhookSecret } from './create-webhook.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { Timestamp } from './shared/timestamp.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpointId } from './shared/webhook.js';

/** How long the previous secret keeps signing after a rotation. */
export const WEBHOOK_SECRET_GRACE_HOURS = 24;

export const RotateWebhookSecretRequest = Type.Object(
  { endpointId: WebhookEndpointId },
  { additionalProperties: false },
);
export type RotateWebhookSecretRequest = Static<typeof RotateWebhookSecretRequest>;

export const RotateWebhookSecretResponse = Type.Object(
  {
    ok: Type.Literal(true),
    secret: WebhookSecret,
    previousSecretExpiresAt: { ...Timestamp, description: 'until then the old secret signs too' },
  },
  { additionalProperties: false },
);
export type RotateWebhookSecretResponse = Static<typeof RotateWebhookSecretResponse>;

export const rotateWebhookSecret = {
  method: 'POST',
  path: '/v1/webhooks/rotate-secret',
  sdk: 'webhooks.rotateSecret',
  summary: 'Rotate a webhook endpoint’s signing secret (extension)',
  body: RotateWebhookSecretRequest,
  response: RotateWebhookSecretResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'webhook_endpoint_not_found'],
  example: {
    body: { endpointId: WEBHOOK_ENDPOINT_EXAMPLE.endpointId },
    response: {
      ok: true,
      secret: WEBHOOK_SECRET_EXAMPLE,
      previousSecretExpiresAt: '2026-11-23T10:15:30.123Z',
    },
  },
} as const satisfies Operation;
