// The cursor of a list (DESIGN.md §12): opaque to the caller, authenticated, and bound to the list,
// the environment and the filter set it was answered for, for a limited time. A cursor changed by
// hand, answered in another environment or for other filters, or older than its lifetime is not
// read: the list answers 400 with a path, and the caller starts again from the first page.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { LIST_CURSOR_TTL_HOURS } from '@mailsvc/contract/api';
import { ApiError } from '../../errors.js';

/** How long every list's cursor may be used after it was answered. */
const CURSOR_TTL_MS = LIST_CURSOR_TTL_HOURS * 3_600_000;

const TAG_BYTES = 16;

/** Where a cursor is valid: a list, an environment, and its filters in one canonical string. */
export interface CursorBinding {
  list: string;
  environmentId: string;
  filters: string;
}

const tagOf = (key: Buffer, b: CursorBinding, body: string) =>
  createHmac('sha256', key)
    .update(`${b.list}\n${b.environmentId}\n${b.filters}\n${body}`)
    .digest()
    .subarray(0, TAG_BYTES);

/** A cursor for `position` (the last item's id), issued `now`. */
export function signCursor(key: Buffer, binding: CursorBinding, position: string, now: Date): string {
  const body = `${position}~${now.getTime()}`;
  return `${Buffer.from(body, 'utf8').toString('base64url')}.${tagOf(key, binding, body).toString('base64url')}`;
}

export type CursorReading = { ok: true; position: string } | { ok: false; reason: 'invalid' | 'expired' };

/** The position a cursor stands for, if this binding answered it less than `ttlMs` ago. */
export function readCursor(
  key: Buffer,
  binding: CursorBinding,
  cursor: string,
  now: Date,
  ttlMs: number,
): CursorReading {
  const match = /^([A-Za-z0-9_-]{1,600})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
  if (!match) return { ok: false, reason: 'invalid' };
  const body = Buffer.from(match[1]!, 'base64url').toString('utf8');
  const tag = Buffer.from(match[2]!, 'base64url');
  // Only the one spelling signCursor writes: base64url has others for the same bytes.
  if (Buffer.from(body, 'utf8').toString('base64url') !== match[1] || tag.toString('base64url') !== match[2])
    return { ok: false, reason: 'invalid' };
  if (tag.length !== TAG_BYTES || !timingSafeEqual(tag, tagOf(key, binding, body)))
    return { ok: false, reason: 'invalid' };
  const sep = body.lastIndexOf('~');
  const issuedAt = Number(body.slice(sep + 1));
  if (sep <= 0 || !Number.isSafeInteger(issuedAt)) return { ok: false, reason: 'invalid' };
  if (now.getTime() - issuedAt > ttlMs) return { ok: false, reason: 'expired' };
  return { ok: true, position: body.slice(0, sep) };
}

/**
 * The position a list's `cursor` field stands for (null or absent: the first page), or 400
 * invalid_request at /cursor: not a cursor of this binding, a position that is not one of the
 * list's ids, or older than 24 hours. `words` says, in the answer, what it was bound to.
 */
export function cursorPosition(
  key: Buffer,
  binding: CursorBinding,
  cursor: string | null | undefined,
  now: Date,
  position: RegExp,
  words: { these: string; same: string } = { these: 'these filters', same: 'filters' },
): string | undefined {
  if (cursor === undefined || cursor === null) return undefined;
  const read = readCursor(key, binding, cursor, now, CURSOR_TTL_MS);
  if (read.ok && position.test(read.position)) return read.position;
  throw new ApiError('invalid_request', 'The request body is not valid.', [
    {
      path: '/cursor',
      message:
        !read.ok && read.reason === 'expired'
          ? `has expired (a cursor is valid for ${LIST_CURSOR_TTL_HOURS} hours): start again from the first page`
          : `is not a cursor of this list with ${words.these}: pass nextCursor as it was answered, with the same ${words.same}`,
    },
  ]);
}
