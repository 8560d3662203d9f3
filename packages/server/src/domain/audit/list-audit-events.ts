// POST /v1/audit/list (DESIGN.md §12): the key's environment's audit events — its recipients'
// resubscribes and unsubscribes, its keys, its bulk sends, changes to it — newest first, by action
// and time, a page at a time; actors and targets as recorded (addresses masked). The cursor is the
// lists' signed one (domain/lists/signed-cursor.ts), bound to the environment and the filters.
import {
  AUDIT_PAGE_SIZE_DEFAULT,
  AUDIT_PAGE_SIZE_MAX,
  type ListAuditEventsRequest,
  type ListAuditEventsResponse,
} from '@mailsvc/contract/api';
import { listEnvironmentAuditPage } from '../../db/repositories/audit.js';
import { ULID_PATTERN } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { idTimeBounds, upperId } from '../lists/id-time-bounds.js';
import { cursorPosition, signCursor } from '../lists/signed-cursor.js';

const EVENT_ID = new RegExp(`^evt_${ULID_PATTERN}$`);

export async function listAuditEvents(
  deps: Deps,
  auth: AuthContext,
  input: ListAuditEventsRequest,
): Promise<Omit<ListAuditEventsResponse, 'ok'>> {
  const actions = input.action ? [...input.action].sort() : undefined;
  // event ids are ULIDs of created_at
  const { fromId, endId } = idTimeBounds('evt', input);
  const binding = {
    list: 'audit',
    environmentId: auth.environmentId,
    filters: JSON.stringify([actions ?? null, fromId ?? null, endId ?? null]),
  };
  const now = deps.clock.now();
  const beforeId = cursorPosition(deps.keys.listCursor, binding, input.cursor, now, EVENT_ID);
  const belowId = upperId(beforeId, endId);
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
