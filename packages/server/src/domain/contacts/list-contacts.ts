// POST /v1/contacts/list (seed §4, DESIGN.md §7): the tenant's contacts in id order (creation
// order), searched (a case-insensitive substring of email or name) and filtered (clauses ANDed;
// status and the flags for the key's environment), a page at a time. The cursor is the page's
// last id, opaque to the caller: a contact added while someone pages gets a later id, so it comes
// on a later page, once, and nothing moves between pages.
import {
  type ContactFilter,
  LIST_PAGE_SIZE_DEFAULT,
  LIST_PAGE_SIZE_MAX,
  type ListContactsRequest,
  type ListContactsResponse,
} from '@mailsvc/contract/api';
import { type ContactFilterSql, listContactRecords } from '../../db/repositories/contacts.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { toContact } from './contact-record.js';
import { CONTACT_ID } from './get-contact.js';

/** pageSize: default 50; above 200 read as 200 (the seed's "capped by the API"). */
export function clampPageSize(pageSize: number | undefined): number {
  return Math.min(pageSize ?? LIST_PAGE_SIZE_DEFAULT, LIST_PAGE_SIZE_MAX);
}

export const encodeCursor = (lastId: string) => Buffer.from(lastId, 'utf8').toString('base64url');

/** The last id a cursor stands for; null for anything this API did not make. */
export function decodeCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return CONTACT_ID.test(id) && encodeCursor(id) === cursor ? id : null;
}

/** For ILIKE: the backslash (our ESCAPE character), % and _ match themselves. */
export const escapeLikePattern = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function toFilterSql(f: ContactFilter): ContactFilterSql {
  switch (f.field) {
    case 'status':
    case 'group':
    case 'project':
    case 'environment':
      return {
        field: f.field,
        op: f.op,
        values: Array.isArray(f.value) ? [...new Set<string>(f.value)] : [f.value],
      } as ContactFilterSql;
    case 'lastEmailedAt':
      return { field: f.field, op: f.op, value: new Date(f.value) };
    default:
      return { field: f.field, value: f.value };
  }
}

export async function listContacts(
  deps: Deps,
  auth: AuthContext,
  input: ListContactsRequest,
): Promise<Omit<ListContactsResponse, 'ok'>> {
  let afterId: string | undefined;
  if (input.cursor !== undefined && input.cursor !== null) {
    const id = decodeCursor(input.cursor);
    if (id === null)
      throw new ApiError('invalid_request', 'The request body is not valid.', [
        { path: '/cursor', message: 'is not a cursor of this list: pass nextCursor as it was answered' },
      ]);
    afterId = id;
  }
  const pageSize = clampPageSize(input.pageSize);
  const rows = await listContactRecords(
    deps.db,
    { tenantId: auth.tenantId, environmentId: auth.environmentId, now: deps.clock.now() },
    {
      searchPattern: input.search ? escapeLikePattern(input.search) : undefined,
      filters: (input.filters ?? []).map(toFilterSql),
      afterId,
      // One more than the page: whether there is a next page, without a count.
      limit: pageSize + 1,
    },
  );
  const page = rows.slice(0, pageSize);
  return {
    contacts: page.map(toContact),
    nextCursor: rows.length > pageSize ? encodeCursor(page.at(-1)!.id) : null,
  };
}
