// A contact (DESIGN.md §7): its limits, its status, its shape, and the example the contact
// operations answer with.
import { type Static, Type } from '@sinclair/typebox';
import { GroupSlug } from './group.js';
import { ContactId } from './ids.js';
import { Timestamp } from './timestamp.js';

/** A custom field's key: usable as `{{contact.customFields.KEY}}`, 1 to 64 characters. */
export const CUSTOM_FIELD_KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';
export const CUSTOM_FIELDS_MAX = 50;
export const CUSTOM_FIELD_STRING_MAX = 1000;
export const CONTACT_NAME_MAX = 200;
export const CONTACT_GROUPS_MAX = 100;

export const CONTACT_STATUSES = ['active', 'unsubscribed', 'cooldown', 'suppressed', 'complained'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];
// One enum rather than a union of literals: a wrong value is one error, not one per literal.
export const ContactStatus = Type.Unsafe<ContactStatus>({
  type: 'string',
  enum: [...CONTACT_STATUSES],
  description:
    "the recipient state in the key's environment, by precedence: complained, suppressed, cooldown, unsubscribed, active",
});

const CustomFieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const Contact = Type.Object(
  {
    id: ContactId,
    email: Type.String({ description: 'normalised: lowercase, IDN domain in punycode' }),
    name: Type.Union([Type.String(), Type.Null()]),
    groupSlugs: Type.Array(GroupSlug, { description: 'sorted' }),
    customFields: Type.Record(Type.String(), CustomFieldValue),
    status: ContactStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    lastEmailedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        'the latest message to the address from any environment of the tenant; read from messages, so it follows message retention',
    }),
    delivery: Type.Object(
      {
        sent: Type.Integer({ minimum: 0, description: 'messages handed to the relay' }),
        bounced: Type.Integer({ minimum: 0 }),
        complained: Type.Integer({ minimum: 0 }),
      },
      {
        additionalProperties: false,
        description:
          "messages to the address in the key's environment; read from messages, so they follow message retention",
      },
    ),
  },
  { additionalProperties: false },
);
export type Contact = Static<typeof Contact>;

export const CONTACT_EXAMPLE: Contact = {
  id: 'ct_01M81C1XJB7Y4KHB01G4B1P0M5',
  email: 'jane@example.com',
  name: 'Jane Doe',
  groupSlugs: ['beta-testers'],
  customFields: { company: 'Acme', seats: 12, trial: true },
  status: 'active',
  createdAt: '2026-11-22T10:15:30.123Z',
  updatedAt: '2026-11-22T10:15:30.123Z',
  lastEmailedAt: '2026-11-20T08:01:12.000Z',
  delivery: { sent: 3, bounced: 0, complained: 0 },
};
