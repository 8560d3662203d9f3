// POST /v1/messages/list (DESIGN.md §12): the key's environment's messages, newest first, with
// filters combined by AND, a page at a time. Metadata only, never content or template data. The
// cursor is signed and bound to the environment and the filters (domain/lists/signed-cursor.ts);
// a message accepted while someone pages has a later id, so it never shows up on a later page and
// nothing moves between pages.
import {
  type ListMessagesRequest,
  type ListMessagesResponse,
  MESSAGE_LIST_PAGE_SIZE_DEFAULT,
  MESSAGE_LIST_PAGE_SIZE_MAX,
} from '@mailsvc/contract/api';
import { listMessagePage, type MessageListFilter } from '../../db/repositories/messages.js';
import { ApiError } from '../../errors.js';
import { ULID_PATTERN } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail, parseEmail } from '../email.js';
import { type CursorBinding, cursorPosition, signCursor } from '../lists/signed-cursor.js';
import { listTimeBound } from '../time-fields.js';
import { toMessageSummary } from './message-summary.js';

const MESSAGE_ID = new RegExp(`^msg_${ULID_PATTERN}$`);

const badRequest = (path: string, message: string) =>
  new ApiError('invalid_request', 'The request body is not valid.', [{ path, message }]);

/** The filters as the query takes them, or the first problem with a path. */
export function toFilter(input: ListMessagesRequest): MessageListFilter {
  const f: MessageListFilter = {};
  if (input.status) f.statuses = [...input.status].sort();
  if (input.templateId !== undefined) f.templateId = input.templateId;
  if (input.to !== undefined) {
    const to = parseEmail(input.to);
    if (!to.ok) throw badRequest('/to', to.reason);
    f.toEmail = to.address;
  }
  for (const field of ['createdAfter', 'createdBefore'] as const) {
    const text = input[field];
    if (text === undefined) continue;
    // A finer fraction than milliseconds rounds up: created_at has none (db/repositories/messages.ts).
    f[field] = listTimeBound(text, `/${field}`);
  }
  if (input.metadata) f.metadata = Object.entries(input.metadata).sort(([a], [b]) => (a < b ? -1 : 1));
  if (input.bulkJobId !== undefined) f.bulkJobId = input.bulkJobId;
  return f;
}

/** The filter set a cursor is bound to: one string for one set, however the body spelled it. */
const canonical = (f: MessageListFilter) =>
  JSON.stringify([
    f.statuses ?? null,
    f.templateId ?? null,
    f.toEmail ?? null,
    f.createdAfter?.toISOString() ?? null,
    f.createdBefore?.toISOString() ?? null,
    f.metadata ?? null,
    f.bulkJobId ?? null,
  ]);

/** Where a cursor of this list is valid: the environment and the filter set. */
export const messageListBinding = (environmentId: string, filter: MessageListFilter): CursorBinding => ({
  list: 'messages',
  environmentId,
  filters: canonical(filter),
});

export async function listMessages(
  deps: Deps,
  auth: AuthContext,
  input: ListMessagesRequest,
): Promise<Omit<ListMessagesResponse, 'ok'>> {
  const filter = toFilter(input);
  const binding = messageListBinding(auth.environmentId, filter);
  const now = deps.clock.now();
  const beforeId = cursorPosition(deps.keys.listCursor, binding, input.cursor, now, MESSAGE_ID);
  const pageSize = Math.min(input.pageSize ?? MESSAGE_LIST_PAGE_SIZE_DEFAULT, MESSAGE_LIST_PAGE_SIZE_MAX);
  // One more than the page: whether there is a next page, without a count.
  const rows = await listMessagePage(deps.db, auth.environmentId, filter, beforeId, pageSize + 1);
  const page = rows.slice(0, pageSize);
  return {
    messages: page.map((row) => ({ ...toMessageSummary(row), emailMasked: maskEmail(row.to_email) })),
    nextCursor:
      rows.length > pageSize ? signCursor(deps.keys.listCursor, binding, page.at(-1)!.id, now) : null,
  };
}
