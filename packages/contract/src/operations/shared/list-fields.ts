// The fields every cursor-paged list shares (DESIGN.md §12): the time bounds, the page size, the
// cursor in the request and the next one in the answer. POST /v1/messages/list, /v1/audit/list,
// /v1/suppressions/list and /v1/contacts/list take them from here.
import { Type } from '@sinclair/typebox';
import { Timestamp } from './timestamp.js';

/** How long a list's cursor may be used after it was answered (domain/lists/signed-cursor.ts). */
export const LIST_CURSOR_TTL_HOURS = 24;

/** `createdAfter`: items of `what` (e.g. "created", "begun") at or after this instant. */
export const CreatedAfter = (what: string) =>
  Type.Optional(
    Type.Unsafe<string>({ ...Timestamp, description: `${what} at or after this instant (RFC 3339)` }),
  );

/** `createdBefore`: items of `what` before this instant. */
export const CreatedBefore = (what: string) =>
  Type.Optional(Type.Unsafe<string>({ ...Timestamp, description: `${what} before this instant (RFC 3339)` }));

/** `pageSize`: at least 1; a value above the list's maximum is read as the maximum. */
export const PageSize = (byDefault: number, max: number) =>
  Type.Optional(
    Type.Integer({ minimum: 1, description: `default ${byDefault}; a value above ${max} is read as ${max}` }),
  );

/**
 * `cursor`: the previous page's `nextCursor`. One type list rather than a union, so a bad value
 * gets one error at /cursor. `boundTo` names what it must be sent with.
 */
export const ListCursor = (maxLength: number, boundTo = 'the same filters') =>
  Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      minLength: 1,
      maxLength,
      description: `the previous page's nextCursor, with ${boundTo} (valid for ${LIST_CURSOR_TTL_HOURS} hours, in the environment it was answered in); null or absent for the first page`,
    }),
  );

/** The answer's `nextCursor`. */
export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass it as cursor, with the same filters, for the next page; null on the last page',
});
