// The body and answer of POST /v1/contacts/groups/add and /remove, which take the same contacts.
import { type Static, Type } from '@sinclair/typebox';
import { GroupSlug } from './group.js';

export const GroupMembersRequest = Type.Object(
  {
    groupSlug: GroupSlug,
    contactIds: Type.Array(
      Type.String({ minLength: 1, maxLength: 320, description: 'a contact id (ct_…) or a contact email' }),
      { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'contact ids or emails, 1 to 1,000' },
    ),
  },
  { additionalProperties: false },
);
export type GroupMembersRequest = Static<typeof GroupMembersRequest>;

export const GroupMembersResponse = Type.Object(
  {
    ok: Type.Literal(true),
    updated: Type.Integer({
      minimum: 0,
      description:
        'memberships added (add) or removed (remove); contacts already in (or not in) the group are not counted',
    }),
  },
  { additionalProperties: false },
);
export type GroupMembersResponse = Static<typeof GroupMembersResponse>;
