// POST /v1/send/batch: up to 100 independent sends in one request, accepted together (DESIGN.md §12).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { IdempotencyKeyHeader } from './shared/idempotency-key-header.js';
import type { Operation } from './shared/operation.js';

export const SEND_BATCH_MAX = 100;

export const SendBatchRequest = Type.Object(
  {
    items: Type.Array(
      Type.Unknown({
        description:
          'one send: the body of POST /v1/send (templateId, to, data, templateVersion?, from?, fromName?, replyTo?, metadata?, scheduledAt?), checked on its own: a bad item, whatever it is, is answered in its result and never refuses the others',
      }),
      { minItems: 1, maxItems: SEND_BATCH_MAX, description: '1 to 100 sends' },
    ),
  },
  { additionalProperties: false },
);
export type SendBatchRequest = Static<typeof SendBatchRequest>;

const ItemError = Type.Object(
  {
    code: Type.String({ description: 'the code POST /v1/send would answer for this item alone' }),
    message: Type.String(),
    details: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.String({ description: 'a JSON Pointer into the batch: /items/3/data/code' }),
            message: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const SendBatchResult = Type.Union([
  Type.Object(
    { status: Type.Literal('accepted'), messageId: Type.String({ pattern: '^msg_' }) },
    { additionalProperties: false },
  ),
  Type.Object({ status: Type.Literal('refused'), error: ItemError }, { additionalProperties: false }),
]);
export type SendBatchResult = Static<typeof SendBatchResult>;

export const SendBatchResponse = Type.Object(
  {
    ok: Type.Literal(true),
    accepted: Type.Integer({ minimum: 0 }),
    refused: Type.Integer({ minimum: 0 }),
    results: Type.Array(SendBatchResult, { description: 'one per item, in the items’ order' }),
    idempotent: Type.Boolean({
      description: 'true when this repeats the answer of an earlier request with this Idempotency-Key',
    }),
  },
  { additionalProperties: false },
);
export type SendBatchResponse = Static<typeof SendBatchResponse>;

export const sendBatch = {
  method: 'POST',
  path: '/v1/send/batch',
  sdk: 'emails.sendBatch',
  scopes: ['full', 'send'],
  summary: 'Queue up to 100 templated emails at once, each checked on its own (extension)',
  body: SendBatchRequest,
  headers: IdempotencyKeyHeader,
  response: SendBatchResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'idempotency_key_reused'],
  example: {
    body: {
      items: [
        {
          templateId: 'login-code',
          to: 'jane@example.com',
          data: { code: '482913' },
          metadata: { userId: 'u_1' },
        },
        { templateId: 'login-code', to: 'not-an-address', data: { code: '482913' } },
      ],
    },
    response: {
      ok: true,
      accepted: 1,
      refused: 1,
      results: [
        { status: 'accepted', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
        {
          status: 'refused',
          error: {
            code: 'invalid_request',
            message: 'to is not a valid email address.',
            details: [{ path: '/items/1/to', message: 'is not a valid email address' }],
          },
        },
      ],
      idempotent: false,
    },
  },
} as const satisfies Operation;
