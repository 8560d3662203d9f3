// POST /v1/suppressions/list (DESIGN.md §12): who the key's environment does not mail and why, one
// entry per address and reason, newest first, by reason and by when it began, a page at a time.
// The cursor is the lists' signed one (domain/lists/signed-cursor.ts), bound to the environment
// and the filters; its position is the last entry's time, reason and address.
import {
  type ListSuppressionsRequest,
  type ListSuppressionsResponse,
  SUPPRESSION_PAGE_SIZE_DEFAULT,
  SUPPRESSION_PAGE_SIZE_MAX,
  SUPPRESSION_REASONS,
  type SuppressionReason,
} from '@mailsvc/contract/api';
import { listSuppressionRows, type SuppressionPosition } from '../../db/repositories/suppressions.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { cursorPosition, signCursor } from '../lists/signed-cursor.js';
import { listTimeBound } from '../time-fields.js';
import { toSuppression } from './suppression-entry.js';

const POSITION = new RegExp(`^(\\d{1,15})\\|(${SUPPRESSION_REASONS.join('|')})\\|(.{1,320})$`, 's');

const positionOf = (p: SuppressionPosition) => `${p.at.getTime()}|${p.reason}|${p.email}`;

export async function listSuppressions(
  deps: Deps,
  auth: AuthContext,
  input: ListSuppressionsRequest,
): Promise<Omit<ListSuppressionsResponse, 'ok'>> {
  const reasons: SuppressionReason[] = input.reason ? [...input.reason].sort() : [...SUPPRESSION_REASONS];
  const from =
    input.createdAfter === undefined ? undefined : listTimeBound(input.createdAfter, '/createdAfter');
  const before =
    input.createdBefore === undefined ? undefined : listTimeBound(input.createdBefore, '/createdBefore');
  const binding = {
    list: 'suppressions',
    environmentId: auth.environmentId,
    filters: JSON.stringify([reasons, from?.getTime() ?? null, before?.getTime() ?? null]),
  };
  const now = deps.clock.now();
  const read = cursorPosition(deps.keys.listCursor, binding, input.cursor, now, POSITION);
  const m = read === undefined ? null : POSITION.exec(read)!;
  const after = m
    ? { at: new Date(Number(m[1])), reason: m[2] as SuppressionReason, email: m[3]! }
    : undefined;
  const pageSize = Math.min(input.pageSize ?? SUPPRESSION_PAGE_SIZE_DEFAULT, SUPPRESSION_PAGE_SIZE_MAX);
  const rows = await listSuppressionRows(deps.db, {
    environmentId: auth.environmentId,
    reasons,
    ...(from && { from }),
    ...(before && { before }),
    ...(after && { after }),
    limit: pageSize + 1,
    now,
  });
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    suppressions: page.map(toSuppression),
    nextCursor:
      rows.length > pageSize && last
        ? signCursor(
            deps.keys.listCursor,
            binding,
            positionOf({ at: last.created_at, reason: last.reason, email: last.email }),
            now,
          )
        : null,
  };
}
