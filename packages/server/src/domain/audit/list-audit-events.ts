// POST /v1/audit/list (DESIGN.md §12): the key's environment's audit events — its recipients'
// resubscribes and unsubscribes, its keys, its bulk sends, changes to it — newest first, by action
// and time, a page at a time; actors and targets as recorded (addresses masked). The cursor is the
// lists' signed one (domain/lists/signed-cursor.ts), bound to the environment and the filters.
import {
  AUDIT_PAGE_SIZE_DEFAULT,
  AUDIT_PAGE_SIZE_MAX,
  type ListAuditEventsRequest,
  type ListAuditEventsResponse,
  MESSAGE_LIST_CURSOR_TTL_HOURS,
} from '@mailsvc/contract/api';
import { encodeUlid } from '@mailsvc/contract/http';
import { listEnvironmentAuditPage } from '../../db/repositories/audit.js';
import { ApiError } from '../../errors.js';
import { ULID_PATTERN } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { readCursor, signCursor } from '../lists/signed-cursor.js';
import { parseTimestamp } from '../timestamp.js';

const EVENT_ID = new RegExp(`^evt_${ULID_PATTERN}$`);
const CURSOR_TTL_MS = MESSAGE_LIST_CURSOR_TTL_HOURS * 3_600_000;
const ZEROS = new Uint8Array(16);
/** The first event id of a millisecond (ids are ULIDs of created_at), a finer instant rounded up. */
function firstIdAt(text: string, path: string): string {
  const at = parseTimestamp(text);
  if (at === null)
    throw new ApiError('invalid_request', 'The request body is not valid.', [
      { path, message: 'must be an RFC 3339 date-time with an offset, in the years 1970 to 9999' },
    ]);
  const finer = /[1-9]/.test((/\.(\d+)/.exec(text)?.[1] ?? '').slice(3));
  return `evt_${encodeUlid(at.getTime() + (finer ? 1 : 0), ZEROS)}`;
}

export async function listAuditEvents(
  deps: Deps,
  auth: AuthContext,
  input: ListAuditEventsRequest,
): Promise<Omit<ListAuditEventsResponse, 'ok'>> {
  const actions = input.action ? [...input.action].sort() : undefined;
  const fromId =
    input.createdAfter === undefined ? undefined : firstIdAt(input.createdAfter, '/createdAfter');
  const endId =
    input.createdBefore === undefined ? undefined : firstIdAt(input.createdBefore, '/createdBefore');
  const binding = {
    list: 'audit',
    environmentId: auth.environmentId,
    filters: JSON.stringify([actions ?? null, fromId ?? null, endId ?? null]),
  };
  const now = deps.clock.now();
  let beforeId: string | undefined;
  if (input.cursor !== undefined && input.cursor !== null) {
    const read = readCursor(deps.keys.listCursor, binding, input.cursor, now, CURSOR_TTL_MS);
    if (!read.ok || !EVENT_ID.test(read.position))
      throw new ApiError('invalid_request', 'The request body is not valid.', [
        {
          path: '/cursor',
          message:
            !read.ok && read.reason === 'expired'
              ? `has expired (a cursor is valid for ${MESSAGE_LIST_CURSOR_TTL_HOURS} hours): start again from the first page`
              : 'is not a cursor of this list with these filters: pass nextCursor as it was answered, with the same filters',
        },
      ]);
    beforeId = read.position;
  }
  const belowId =
    beforeId !== undefined && endId !== undefined
      ? beforeId < endId
        ? beforeId
        : endId
      : (beforeId ?? endId);
  const pageSize = Math.min(input.pageSize ?? AUDIT_PAGE_SIZE_DEFAULT, AUDIT_PAGE_SIZE_MAX);
  const rows = await listEnvironmentAuditPage(deps.db, auth.environmentId, {
    ...(actions && { actions }),
    ...(fromId !== undefined && { fromId }),
    ...(belowId !== undefined && { belowId }),
    limit: pageSize + 1,
  });
  const page = rows.slice(0, pageSize);
  return {
    events: page.map((r) => ({
      id: r.id,
      actor: r.actor,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
      createdAt: r.created_at.toISOString(),
    })),
    nextCursor:
      rows.length > pageSize ? signCursor(deps.keys.listCursor, binding, page.at(-1)!.id, now) : null,
  };
}
