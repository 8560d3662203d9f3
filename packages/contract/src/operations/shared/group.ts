// A contact group (DESIGN.md §7): its slug, the identity every group operation takes, and its shape.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp } from './timestamp.js';

/** A group's stable identity in v1. */
export const GROUP_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
export const GroupSlug = Type.String({
  pattern: GROUP_SLUG_PATTERN,
  description: 'lowercase letters, digits and hyphens, 1 to 63 characters, starting with a letter or digit',
});

export const ContactGroup = Type.Object(
  {
    slug: GroupSlug,
    name: Type.String({ description: 'display name' }),
    contactCount: Type.Integer({ minimum: 0, description: 'contacts in the group' }),
    createdAt: Timestamp,
    updatedAt: { ...Timestamp, description: 'creation or the last change of its name' },
  },
  { additionalProperties: false },
);
export type ContactGroup = Static<typeof ContactGroup>;
