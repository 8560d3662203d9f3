// POST /v1/contacts/list (seed §4, DESIGN.md §7): the tenant's contacts in id order (creation
// order), searched (a case-insensitive substring of email or name) and filtered (clauses ANDed;
// status and the flags for the key's environment), a page at a time. The cursor stands for the
// page's last id, signed and bound to the environment, the search and the filters for 24 hours
// (domain/lists/signed-cursor.ts, as the message list's): a contact added while someone pages gets
// a later id, so it comes on a later page, once, and nothing moves between pages.
import {
  type ContactFilter,
  LIST_PAGE_SIZE_DEFAULT,
  LIST_PAGE_SIZE_MAX,
  type ListContactsRequest,
  type ListContactsResponse,
} from '@mailsvc/contract/api';
import { type ContactFilterSql, listContactRecords } from '../../db/repositories/contacts.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { type CursorBinding, cursorPosition, signCursor } from '../lists/signed-cursor.js';
import { contactScopeOf, toContact } from './contact-record.js';
import { CONTACT_ID } from './get-contact.js';

/** pageSize: default 50; above 200 read as 200 (the seed's "capped by the API"). */
export function clampPageSize(pageSize: number | undefined): number {
  return Math.min(pageSize ?? LIST_PAGE_SIZE_DEFAULT, LIST_PAGE_SIZE_MAX);
}

/**
 * Where a cursor of this list is valid (DESIGN.md §12): the key's environment (the list shows its
 * states) and the search and filters as given.
 */
export const contactListBinding = (environmentId: string, input: ListContactsRequest): CursorBinding => ({
  list: 'contacts',
  environmentId,
  filters: JSON.stringify([input.search ?? null, input.filters ?? []]),
});

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

/**
 * A console member limited to some projects filters by its projects and their environments only:
 * a filter naming another project's (or one that does not exist: the same answer) would tell it
 * who was mailed where it cannot look. Keys and unlimited members filter by any of the tenant's.
 */
async function refuseFiltersBeyondReach(db: Db, auth: AuthContext, filters: readonly ContactFilter[]) {
  const reach = auth.member?.projectIds;
  if (!reach) return;
  const problems: { path: string; message: string }[] = [];
  for (const [i, f] of filters.entries()) {
    if (f.field !== 'project' && f.field !== 'environment') continue;
    const values = Array.isArray(f.value) ? f.value : [f.value];
    const projectOf = new Map<string, string>(
      f.field === 'project'
        ? values.map((v) => [v, v])
        : (
            await db
              .selectFrom('environments')
              .select(['id', 'project_id'])
              .where('id', 'in', values)
              .where('tenant_id', '=', auth.tenantId)
              .execute()
          ).map((e) => [e.id, e.project_id]),
    );
    if (values.some((v) => !reach.includes(projectOf.get(v) ?? '')))
      problems.push({
        path: `/filters/${i}/value`,
        message: `must name only ${f.field === 'project' ? 'projects' : 'environments of projects'} you are a member of`,
      });
  }
  if (problems.length > 0)
    throw new ApiError(
      'invalid_request',
      'You are a member of some projects only: filter by those projects and their environments.',
      problems,
    );
}

export async function listContacts(
  deps: Deps,
  auth: AuthContext,
  input: ListContactsRequest,
): Promise<Omit<ListContactsResponse, 'ok'>> {
  await refuseFiltersBeyondReach(deps.db, auth, input.filters ?? []);
  const binding = contactListBinding(auth.environmentId, input);
  const now = deps.clock.now();
  const afterId = cursorPosition(deps.keys.listCursor, binding, input.cursor, now, CONTACT_ID, {
    these: 'this search and these filters',
    same: 'search and filters',
  });
  const pageSize = clampPageSize(input.pageSize);
  const rows = await listContactRecords(
    deps.db,
    { ...contactScopeOf(auth), now },
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
    nextCursor:
      rows.length > pageSize ? signCursor(deps.keys.listCursor, binding, page.at(-1)!.id, now) : null,
  };
}
