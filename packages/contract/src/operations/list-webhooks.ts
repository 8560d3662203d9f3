// POST /v1/webhooks/list: the key's environment's webhook endpoints (at most 20), oldest first.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { WEBHOOK_ENDPOINT_EXAMPLE, WebhookEndpoint } from './shared/webhook.js';

export const ListWebhooksRequest = Type.Object({}, { additionalProperties: false });
export type ListWebhooksRequest = Static<typeof ListWebhooksRequest>;

export const ListWebhooksResponse = Type.Object(
  { ok: Type.Literal(true), endpoints: Type.Array(WebhookEndpoint, { description: 'oldest first' }) },
  { additionalProperties: false },
);
export type ListWebhooksResponse = Static<typeof ListWebhooksResponse>;

export const listWebhooks = {
  method: 'POST',
  path: '/v1/webhooks/list',
  sdk: 'webhooks.list',
  summary: 'The environment’s webhook endpoints (extension)',
  body: ListWebhooksRequest,
  response: ListWebhooksResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: { body: {}, response: { ok: true, endpoints: [WEBHOOK_ENDPOINT_EXAMPLE] } },
} as const satisfies Operation;
