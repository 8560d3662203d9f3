// POST /v1/contacts/groups/remove: remove contacts from a group (DESIGN.md §7); the body is shared with add.
import { GROUP_ERRORS } from './shared/error-sets.js';
import { GroupMembersRequest, GroupMembersResponse } from './shared/group-members.js';
import type { Operation } from './shared/operation.js';

export const removeContactsFromGroup = {
  method: 'POST',
  path: '/v1/contacts/groups/remove',
  sdk: 'contacts.groups.remove',
  summary: 'Remove contacts, by id or email, from a group (never deletes them)',
  body: GroupMembersRequest,
  response: GroupMembersResponse,
  errors: [...GROUP_ERRORS, 'group_not_found'],
  example: {
    body: { groupSlug: 'beta-testers', contactIds: ['jane@example.com'] },
    response: { ok: true, updated: 1 },
  },
} as const satisfies Operation;
