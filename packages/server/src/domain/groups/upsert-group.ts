// POST /v1/contacts/groups/upsert (DESIGN.md §7): creates a group, or renames the group of this
// slug. The slug is the group's identity (stable in v1); without one it is derived from the name,
// so upserting the same name again finds the same group and changes nothing.
import type { UpsertGroupRequest, UpsertGroupResponse } from '@mailsvc/contract/api';
import { upsertGroupRow } from '../../db/repositories/groups.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { toContactGroup } from './contact-group.js';
import { deriveGroupSlug } from './derive-group-slug.js';

export async function upsertGroup(
  deps: Deps,
  auth: AuthContext,
  input: UpsertGroupRequest,
): Promise<Omit<UpsertGroupResponse, 'ok'>> {
  if (input.name.trim() === '')
    throw new ApiError('invalid_request', 'The group name is blank.', [
      { path: '/name', message: 'must not be blank' },
    ]);
  const slug = input.slug ?? deriveGroupSlug(input.name);
  if (slug === null)
    throw new ApiError(
      'invalid_request',
      'The name has no letters or digits to derive a slug from; pass slug.',
      [{ path: '/name', message: 'name has no letters or digits to derive a slug from; pass slug' }],
    );
  const row = await upsertGroupRow(
    deps.db,
    { tenantId: auth.tenantId, slug, name: input.name },
    deps.clock.now(),
  );
  return { group: toContactGroup(row) };
}
