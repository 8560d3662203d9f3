// POST /v1/contacts/upsert: create or update one contact, by email (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { UNSAFE_DISPLAY_CHARACTERS } from '../display-name.js';
import {
  CONTACT_EXAMPLE,
  CONTACT_GROUPS_MAX,
  CONTACT_NAME_MAX,
  Contact,
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELD_STRING_MAX,
  CUSTOM_FIELDS_MAX,
} from './shared/contact.js';
import { CONTACT_ERRORS } from './shared/error-sets.js';
import { GroupSlug } from './shared/group.js';
import type { Operation } from './shared/operation.js';

export const UpsertContactRequest = Type.Object(
  {
    email: Type.String({
      format: 'email',
      maxLength: 320,
      description: "the contact's identity within the tenant: trimmed, lowercased, IDN domain in punycode",
    }),
    name: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: CONTACT_NAME_MAX,
        pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
        description:
          '1 to 200 characters, one line, no control, bidirectional or invisible characters; null clears it; absent leaves it as it is',
      }),
    ),
    groupSlugs: Type.Optional(
      Type.Array(GroupSlug, {
        maxItems: CONTACT_GROUPS_MAX,
        uniqueItems: true,
        description:
          "the contact's exact set of groups (at most 100); groups that do not exist are created; absent leaves the memberships as they are",
      }),
    ),
    customFields: Type.Optional(
      Type.Record(
        Type.String({ pattern: CUSTOM_FIELD_KEY_PATTERN }),
        Type.Unsafe<string | number | boolean | null>({
          type: ['string', 'number', 'boolean', 'null'],
          maxLength: CUSTOM_FIELD_STRING_MAX,
          description: 'a string (at most 1,000 characters), a number, a boolean, or null to delete the key',
        }),
        {
          additionalProperties: false,
          // 50 set and 50 deleted is the most a request can mean: at most 50 keys are ever stored.
          maxProperties: 2 * CUSTOM_FIELDS_MAX,
          description:
            'merged key by key into the stored fields; null deletes a key; keys are letters, digits, _ and -, starting with a letter or _, at most 64 characters (usable as {{contact.customFields.KEY}}); at most 50 keys after the merge, at most 100 in one request',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpsertContactRequest = Static<typeof UpsertContactRequest>;

export const UpsertContactResponse = Type.Object(
  { ok: Type.Literal(true), contact: Contact },
  { additionalProperties: false },
);
export type UpsertContactResponse = Static<typeof UpsertContactResponse>;

export const upsertContact = {
  method: 'POST',
  path: '/v1/contacts/upsert',
  sdk: 'contacts.upsert',
  summary: 'Create or update a contact of the tenant, by email',
  body: UpsertContactRequest,
  response: UpsertContactResponse,
  errors: CONTACT_ERRORS,
  example: {
    body: {
      email: 'jane@example.com',
      name: 'Jane Doe',
      groupSlugs: ['beta-testers'],
      customFields: { company: 'Acme', seats: 12, trial: true },
    },
    response: { ok: true, contact: CONTACT_EXAMPLE },
  },
} as const satisfies Operation;
