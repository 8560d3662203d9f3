import type { ContactGroup } from '@mailsvc/contract/api';
import type { GroupRow } from '../../db/repositories/groups.js';
import { ApiError } from '../../errors.js';

/** A group as the API answers it (DESIGN.md §7). */
export function toContactGroup(row: GroupRow): ContactGroup {
  return {
    slug: row.slug,
    name: row.name,
    contactCount: row.contact_count,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export const groupNotFound = (slug: string) =>
  new ApiError('group_not_found', `No contact group "${slug}" in the tenant.`, [
    { path: '/groupSlug', message: 'no group with this slug in the tenant' },
  ]);
