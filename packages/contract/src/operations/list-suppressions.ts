// POST /v1/suppressions/list: the key's environment's suppressions, newest first, a page at a time
// (DESIGN.md §12); filtered by reason and by when they began.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { CreatedAfter, CreatedBefore, ListCursor, NextCursor, PageSize } from './shared/list-fields.js';
import type { Operation } from './shared/operation.js';
import { SUPPRESSION_EXAMPLE, Suppression, SuppressionReasonSchema } from './shared/suppression.js';

export const SUPPRESSION_PAGE_SIZE_DEFAULT = 50;
export const SUPPRESSION_PAGE_SIZE_MAX = 100;

export const ListSuppressionsRequest = Type.Object(
  {
    reason: Type.Optional(
      Type.Array(SuppressionReasonSchema, {
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        description: 'entries of any of these reasons (default: all four)',
      }),
    ),
    createdAfter: CreatedAfter('begun'),
    createdBefore: CreatedBefore('begun'),
    pageSize: PageSize(SUPPRESSION_PAGE_SIZE_DEFAULT, SUPPRESSION_PAGE_SIZE_MAX),
    // its position holds an address: longer than the other lists'
    cursor: ListCursor(700),
  },
  { additionalProperties: false },
);
export type ListSuppressionsRequest = Static<typeof ListSuppressionsRequest>;

export const ListSuppressionsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    suppressions: Type.Array(Suppression, {
      description: 'newest first; an address suppressed for two reasons is listed once for each',
    }),
    nextCursor: NextCursor,
  },
  { additionalProperties: false },
);
export type ListSuppressionsResponse = Static<typeof ListSuppressionsResponse>;

export const listSuppressions = {
  method: 'POST',
  path: '/v1/suppressions/list',
  sdk: 'suppressions.list',
  summary: 'The environment’s suppressions, newest first (extension)',
  body: ListSuppressionsRequest,
  response: ListSuppressionsResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { reason: ['manual', 'hard_bounce'], pageSize: 50 },
    response: { ok: true, suppressions: [SUPPRESSION_EXAMPLE], nextCursor: null },
  },
} as const satisfies Operation;
