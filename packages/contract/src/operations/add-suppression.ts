// POST /v1/suppressions/add: the app stops all mail to an address of the key's environment
// (reason manual), until a time or until removed (DESIGN.md §12). Sends answer 403
// recipient_suppressed, every category alike; queued mail to it is not sent.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { SUPPRESSION_EXAMPLE, Suppression, SuppressionEmail, SuppressionNote } from './shared/suppression.js';

export const AddSuppressionRequest = Type.Object(
  {
    email: SuppressionEmail,
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 64,
        description: 'RFC 3339, in the future: it ends then by itself (default: until removed)',
      }),
    ),
    note: Type.Optional(SuppressionNote),
  },
  { additionalProperties: false },
);
export type AddSuppressionRequest = Static<typeof AddSuppressionRequest>;

export const AddSuppressionResponse = Type.Object(
  { ok: Type.Literal(true), suppression: Suppression },
  { additionalProperties: false },
);
export type AddSuppressionResponse = Static<typeof AddSuppressionResponse>;

export const addSuppression = {
  method: 'POST',
  path: '/v1/suppressions/add',
  sdk: 'suppressions.add',
  summary: 'Stop all mail to an address (a manual suppression; extension)',
  body: AddSuppressionRequest,
  response: AddSuppressionResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { email: 'jane@example.com', note: 'asked support to stop all mail' },
    response: { ok: true, suppression: SUPPRESSION_EXAMPLE },
  },
} as const satisfies Operation;
