// POST /v1/contacts/groups/add (DESIGN.md §7): adds contacts of the key's tenant, by id or email,
// to a group, creating the group (named after its slug) when missing. All or nothing: one unknown
// contact is a 404 contact_not_found and nothing changes. `updated` counts the memberships added;
// a contact already in the group is not counted.
import type { GroupMembersRequest, GroupMembersResponse } from '@mailsvc/contract/api';
import { addGroupMembers } from '../../db/repositories/groups.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { parseContactRefs, resolveContactRefs } from './resolve-contact-refs.js';

export async function addContactsToGroup(
  deps: Deps,
  auth: AuthContext,
  input: GroupMembersRequest,
): Promise<Omit<GroupMembersResponse, 'ok'>> {
  const refs = parseContactRefs('/contactIds', input.contactIds);
  const now = deps.clock.now();
  const updated = await deps.db.transaction().execute(async (trx) => {
    const contactIds = await resolveContactRefs(trx, {
      tenantId: auth.tenantId,
      pointer: '/contactIds',
      refs,
      isLocked: true,
    });
    return addGroupMembers(trx, { tenantId: auth.tenantId, slug: input.groupSlug, contactIds }, now);
  });
  return { updated };
}
