// POST /v1/contacts/groups/list: every group of the tenant (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { GROUP_ERRORS } from './shared/error-sets.js';
import { ContactGroup } from './shared/group.js';
import type { Operation } from './shared/operation.js';

export const ListGroupsRequest = Type.Object(
  {},
  { additionalProperties: false, description: 'no fields: {}' },
);
export type ListGroupsRequest = Static<typeof ListGroupsRequest>;

export const ListGroupsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    groups: Type.Array(ContactGroup, { description: 'every group of the tenant, by slug' }),
  },
  { additionalProperties: false },
);
export type ListGroupsResponse = Static<typeof ListGroupsResponse>;

export const listGroups = {
  method: 'POST',
  path: '/v1/contacts/groups/list',
  sdk: 'contacts.groups.list',
  summary: 'Every group of the tenant, by slug, with its contact count',
  body: ListGroupsRequest,
  response: ListGroupsResponse,
  errors: GROUP_ERRORS,
  example: {
    body: {},
    response: {
      ok: true,
      groups: [
        {
          slug: 'beta-testers',
          name: 'Beta testers',
          contactCount: 1834,
          createdAt: '2026-11-22T10:15:30.123Z',
          updatedAt: '2026-11-22T10:15:30.123Z',
        },
      ],
    },
  },
} as const satisfies Operation;
