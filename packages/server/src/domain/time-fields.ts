// Times a request names, checked one way wherever they appear: a list's time bound
// (createdAfter/createdBefore of the message, audit and suppression lists) and a time in the
// future (a send's scheduledAt, a suppression's until). Read with parseTimestampToMs
// (domain/timestamp.ts): whole milliseconds, a finer fraction rounded up. A value the rule
// refuses is 400 invalid_request at its path.
import { ApiError } from '../errors.js';
import { parseTimestampToMs } from './timestamp.js';

/** A list's time bound, or 400 at `path`. */
export function listTimeBound(text: string, path: string): Date {
  const at = parseTimestampToMs(text);
  if (at === null)
    throw new ApiError('invalid_request', 'The request body is not valid.', [
      {
        path,
        message:
          'must be an RFC 3339 date-time with an offset, in the years 1970 to 9999, without a leap second',
      },
    ]);
  return at;
}

/** The 400 of a time field `field` at `path`, worded "`field` `why`.". */
export function timeFieldError(field: string, path: string, why: string): ApiError {
  return new ApiError('invalid_request', `${field} ${why}.`, [{ path, message: why }]);
}

/** A time after `now`, or 400 at `path`. */
export function futureTime(text: string, now: Date, field: string, path: string): Date {
  const at = parseTimestampToMs(text);
  if (at === null)
    throw timeFieldError(field, path, 'must be an RFC 3339 time with an offset, e.g. 2026-12-01T09:00:00Z');
  if (at.getTime() <= now.getTime()) throw timeFieldError(field, path, 'must be in the future');
  return at;
}
