// POST /v1/send: queue one templated email (DESIGN.md §3).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { IdempotencyKeyHeader } from './shared/idempotency-key-header.js';
import { Metadata } from './shared/metadata.js';
import type { Operation } from './shared/operation.js';
import { ScheduledAt } from './shared/schedule.js';

/** Body shape only (DESIGN.md §3 step 2); from, fromName and replyTo have their own codes later. */
export const SendRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. login-code' }),
    to: Type.String({ minLength: 1, maxLength: 320, description: 'one bare address, no display name' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "template data, checked against the template version's JSON Schema",
      },
    ),
    templateVersion: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'default: the latest published version' }),
    ),
    from: Type.Optional(Type.String({ maxLength: 320, description: 'an address on the sending domain' })),
    fromName: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'at most 120 characters; no line breaks, control, bidi or invisible characters',
      }),
    ),
    replyTo: Type.Optional(Type.String({ maxLength: 320 })),
    metadata: Type.Optional(Metadata),
    scheduledAt: Type.Optional(ScheduledAt),
  },
  { additionalProperties: false },
);
export type SendRequest = Static<typeof SendRequest>;

export const SendResponse = Type.Object(
  {
    ok: Type.Literal(true),
    status: Type.Literal('accepted', { description: 'accepted and queued; not yet delivered' }),
    messageId: Type.String({ pattern: '^msg_' }),
    idempotent: Type.Boolean({ description: 'true when this repeats an earlier accepted request' }),
  },
  { additionalProperties: false },
);
export type SendResponse = Static<typeof SendResponse>;

export const sendEmail = {
  method: 'POST',
  path: '/v1/send',
  sdk: 'emails.send',
  scopes: ['full', 'send'],
  summary: 'Queue one templated email',
  body: SendRequest,
  headers: IdempotencyKeyHeader,
  response: SendResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'idempotency_key_reused',
    'template_not_found',
    'template_version_not_found',
    'invalid_template_data',
    'invalid_from_address',
    'invalid_from_name',
    'invalid_reply_to',
    'sending_domain_not_ready',
    'from_domain_not_allowed',
    'app_paused',
    'app_blocked',
    'recipient_complained',
    'recipient_unsubscribed',
    'recipient_suppressed',
    'monthly_quota_exceeded',
  ],
  example: {
    body: { templateId: 'login-code', to: 'jane@example.com', data: { code: '482913' } },
    response: {
      ok: true,
      status: 'accepted',
      messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
      idempotent: false,
    },
  },
} as const satisfies Operation;
