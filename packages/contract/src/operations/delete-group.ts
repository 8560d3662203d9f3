// POST /v1/contacts/groups/delete: delete a group and its memberships, never its contacts (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { GROUP_ERRORS } from './shared/error-sets.js';
import { GroupSlug } from './shared/group.js';
import { OkResponse } from './shared/ok-response.js';
import type { Operation } from './shared/operation.js';

export const DeleteGroupRequest = Type.Object({ groupSlug: GroupSlug }, { additionalProperties: false });
export type DeleteGroupRequest = Static<typeof DeleteGroupRequest>;

export const deleteGroup = {
  method: 'POST',
  path: '/v1/contacts/groups/delete',
  sdk: 'contacts.groups.delete',
  summary: 'Delete a group and its memberships, never its contacts',
  body: DeleteGroupRequest,
  response: OkResponse,
  errors: [...GROUP_ERRORS, 'group_not_found'],
  example: { body: { groupSlug: 'beta-testers' }, response: { ok: true } },
} as const satisfies Operation;
