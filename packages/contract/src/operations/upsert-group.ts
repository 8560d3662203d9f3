// POST /v1/contacts/groups/upsert: create a group, or rename the group of a slug (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { UNSAFE_DISPLAY_CHARACTERS } from '../display-name.js';
import { GROUP_ERRORS } from './shared/error-sets.js';
import { ContactGroup, GroupSlug } from './shared/group.js';
import type { Operation } from './shared/operation.js';

export const GroupName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
  description:
    'display name, 1 to 100 characters: one line, no control, bidirectional or invisible characters',
});

export const UpsertGroupRequest = Type.Object(
  {
    name: GroupName,
    slug: Type.Optional({
      ...GroupSlug,
      description:
        'the group to create or rename; default: derived from name (lowercase, accents dropped, anything but a-z and 0-9 as -, at most 63 characters)',
    }),
  },
  { additionalProperties: false },
);
export type UpsertGroupRequest = Static<typeof UpsertGroupRequest>;

export const UpsertGroupResponse = Type.Object(
  { ok: Type.Literal(true), group: ContactGroup },
  { additionalProperties: false },
);
export type UpsertGroupResponse = Static<typeof UpsertGroupResponse>;

export const upsertGroup = {
  method: 'POST',
  path: '/v1/contacts/groups/upsert',
  sdk: 'contacts.groups.upsert',
  summary: 'Create a group, or rename the group of this slug',
  body: UpsertGroupRequest,
  response: UpsertGroupResponse,
  errors: GROUP_ERRORS,
  example: {
    body: { name: 'Beta testers' },
    response: {
      ok: true,
      group: {
        slug: 'beta-testers',
        name: 'Beta testers',
        contactCount: 0,
        createdAt: '2026-11-22T10:15:30.123Z',
        updatedAt: '2026-11-22T10:15:30.123Z',
      },
    },
  },
} as const satisfies Operation;
