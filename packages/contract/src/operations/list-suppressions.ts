// POST /v1/suppressions/list: the key's environment's suppressions, newest first, a page at a time
// (DESIGN.md §12); filtered by reason and by when they began.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { SUPPRESSION_EXAMPLE, Suppression, SuppressionReasonSchema } from './shared/suppression.js';
import { Timestamp } from './shared/timestamp.js';

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
    createdAfter: Type.Optional(
      Type.Unsafe<string>({ ...Timestamp, description: 'begun at or after this instant (RFC 3339)' }),
    ),
    createdBefore: Type.Optional(
      Type.Unsafe<string>({ ...Timestamp, description: 'begun before this instant (RFC 3339)' }),
    ),
    pageSize: Type.Optional(
      Type.Integer({ minimum: 1, description: 'default 50; a value above 100 is read as 100' }),
    ),
    cursor: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 700,
        description:
          "the previous page's nextCursor, with the same filters (valid for 24 hours, in its environment); null or absent for the first page",
      }),
    ),
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
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'pass it as cursor, with the same filters, for the next page; null on the last page',
    }),
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
