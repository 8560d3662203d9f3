// POST /v1/contacts/groups/list (DESIGN.md §7): every group of the key's tenant, by slug, each
// with its number of contacts.
import type { ListGroupsResponse } from '@mailsvc/contract/api';
import { listGroupRows } from '../../db/repositories/groups.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { toContactGroup } from './contact-group.js';

export async function listGroups(deps: Deps, auth: AuthContext): Promise<Omit<ListGroupsResponse, 'ok'>> {
  return { groups: (await listGroupRows(deps.db, auth.tenantId)).map(toContactGroup) };
}
