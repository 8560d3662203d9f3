import type { Contact } from '@mailsvc/contract/api';
import type { ContactRow, ContactScope } from '../../db/repositories/contacts.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';

/**
 * What a key sees of the tenant's contacts: its environment's states, and when a contact was last
 * mailed in any environment of the tenant (a console member limited to some projects: in theirs).
 */
export const contactScopeOf = (auth: AuthContext): Omit<ContactScope, 'now'> => ({
  tenantId: auth.tenantId,
  environmentId: auth.environmentId,
  projectIds: auth.member?.projectIds ?? null,
});

/** A contact as the API answers it (DESIGN.md §7). */
export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    groupSlugs: row.group_slugs,
    customFields: row.custom_fields,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    lastEmailedAt: row.last_emailed_at ? row.last_emailed_at.toISOString() : null,
    delivery: { sent: row.sent, bounced: row.bounced, complained: row.complained },
  };
}

export const contactNotFound = (pointer: string) =>
  new ApiError('contact_not_found', 'No contact with this id or email in the tenant.', [
    { path: pointer, message: 'no contact with this id or email in the tenant' },
  ]);
