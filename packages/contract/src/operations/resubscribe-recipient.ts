// POST /v1/recipients/resubscribe: clear a notification unsubscribe after an explicit opt-in (DESIGN.md §5).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { OkResponse } from './shared/ok-response.js';
import type { Operation } from './shared/operation.js';

export const ResubscribeRequest = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    scope: Type.Literal('app_notifications', { description: 'the only scope of v1' }),
  },
  { additionalProperties: false },
);
export type ResubscribeRequest = Static<typeof ResubscribeRequest>;

export const resubscribeRecipient = {
  method: 'POST',
  path: '/v1/recipients/resubscribe',
  sdk: 'recipients.resubscribe',
  summary: 'Clear a recipient’s notification unsubscribe after an explicit opt-in',
  body: ResubscribeRequest,
  response: OkResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  invalidRequestMessage: 'Invalid resubscribe request: expected a valid email and scope app_notifications.',
  example: { body: { email: 'jane@example.com', scope: 'app_notifications' }, response: { ok: true } },
} as const satisfies Operation;
