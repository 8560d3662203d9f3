// POST /v1/contacts/groups/add: add contacts to a group (DESIGN.md §7); the body is shared with remove.
import { GROUP_ERRORS } from './shared/error-sets.js';
import { GroupMembersRequest, GroupMembersResponse } from './shared/group-members.js';
import type { Operation } from './shared/operation.js';

export const addContactsToGroup = {
  method: 'POST',
  path: '/v1/contacts/groups/add',
  sdk: 'contacts.groups.add',
  summary: 'Add contacts, by id or email, to a group (created when missing)',
  body: GroupMembersRequest,
  response: GroupMembersResponse,
  errors: GROUP_ERRORS,
  example: {
    body: { groupSlug: 'beta-testers', contactIds: ['ct_01M81C1XJB7Y4KHB01G4B1P0M5', 'jane@example.com'] },
    response: { ok: true, updated: 2 },
  },
} as const satisfies Operation;
