// A list whose ids are ULIDs of their items' time (evt_…, wha_…): its time bounds as ids, so a
// page is one range of the primary key. POST /v1/audit/list and /v1/webhooks/deliveries/list.
import { encodeUlid } from '@mailsvc/contract/http';
import { listTimeBound } from '../time-fields.js';

const ZEROS = new Uint8Array(16);

/** The first id of a millisecond (a finer instant rounded up), for a list's time bound at `path`. */
const firstIdAt = (prefix: string, text: string, path: string) =>
  `${prefix}_${encodeUlid(listTimeBound(text, path).getTime(), ZEROS)}`;

/**
 * `fromId`: items at or after `createdAfter`; `endId`: items before `createdBefore`; each
 * undefined when the bound is not given. A bad bound is 400 at its path.
 */
export function idTimeBounds(
  prefix: string,
  input: { createdAfter?: string; createdBefore?: string },
): { fromId?: string; endId?: string } {
  return {
    ...(input.createdAfter !== undefined && {
      fromId: firstIdAt(prefix, input.createdAfter, '/createdAfter'),
    }),
    ...(input.createdBefore !== undefined && {
      endId: firstIdAt(prefix, input.createdBefore, '/createdBefore'),
    }),
  };
}

/** A page's exclusive upper id: the cursor's position or the `createdBefore` bound, the lower. */
export function upperId(cursorId: string | undefined, endId: string | undefined): string | undefined {
  if (cursorId === undefined) return endId;
  if (endId === undefined) return cursorId;
  return cursorId < endId ? cursorId : endId;
}
