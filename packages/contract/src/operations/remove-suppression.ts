// POST /v1/suppressions/remove: clears an address's manual suppression and its hard-bounce
// cooldown or suppression (DESIGN.md §12), audited with the state before. Never a complaint (the
// operator's to clear) and never an unsubscribe (only the recipient's opt-in, through
// POST /v1/recipients/resubscribe, clears it: seed rule 3).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { Suppression, SuppressionEmail, SuppressionReasonSchema } from './shared/suppression.js';

export const RemoveSuppressionRequest = Type.Object(
  {
    email: SuppressionEmail,
    reason: Type.Optional(
      Type.Unsafe<'manual' | 'hard_bounce' | 'complaint' | 'unsubscribed'>({
        ...SuppressionReasonSchema,
        description:
          'the entry to clear: manual or hard_bounce (default: both that exist); complaint and unsubscribed answer 403 suppression_not_removable',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RemoveSuppressionRequest = Static<typeof RemoveSuppressionRequest>;

export const RemoveSuppressionResponse = Type.Object(
  {
    ok: Type.Literal(true),
    removed: Type.Array(SuppressionReasonSchema, { description: 'the reasons cleared' }),
    remaining: Type.Array(Suppression, {
      description: 'what still holds the address back (a complaint, an unsubscribe), if anything',
    }),
  },
  { additionalProperties: false },
);
export type RemoveSuppressionResponse = Static<typeof RemoveSuppressionResponse>;

export const removeSuppression = {
  method: 'POST',
  path: '/v1/suppressions/remove',
  sdk: 'suppressions.remove',
  summary: 'Clear a manual or hard-bounce suppression (extension)',
  body: RemoveSuppressionRequest,
  response: RemoveSuppressionResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'suppression_not_removable',
    'suppression_not_found',
  ],
  example: {
    body: { email: 'jane@example.com' },
    response: { ok: true, removed: ['manual', 'hard_bounce'], remaining: [] },
  },
} as const satisfies Operation;
