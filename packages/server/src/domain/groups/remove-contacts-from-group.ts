// POST /v1/contacts/groups/remove (DESIGN.md §7): removes contacts of the key's tenant, by id or
// email, from a group; the contacts stay. Unknown group: 404 group_not_found; one unknown contact:
// 404 contact_not_found, nothing changes. `updated` counts the memberships removed; a contact that
// was not in the group is not counted.
import type { GroupMembersRequest, GroupMembersResponse } from '@mailsvc/contract/api';
import { hasGroup, removeGroupMembers } from '../../db/repositories/groups.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { groupNotFound } from './contact-group.js';
import { parseContactRefs, resolveContactRefs } from './resolve-contact-refs.js';

export async function removeContactsFromGroup(
  deps: Deps,
  auth: AuthContext,
  input: GroupMembersRequest,
): Promise<Omit<GroupMembersResponse, 'ok'>> {
  const refs = parseContactRefs('/contactIds', input.contactIds);
  const updated = await deps.db.transaction().execute(async (trx) => {
    if (!(await hasGroup(trx, auth.tenantId, input.groupSlug))) throw groupNotFound(input.groupSlug);
    const contactIds = await resolveContactRefs(trx, {
      tenantId: auth.tenantId,
      pointer: '/contactIds',
      refs,
      isLocked: false,
    });
    return removeGroupMembers(trx, { tenantId: auth.tenantId, slug: input.groupSlug, contactIds });
  });
  return { updated };
}
