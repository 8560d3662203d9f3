// POST /v1/contacts/upsert-many: create or update up to 1,000 contacts, all or none (extension).
import { type Static, Type } from '@sinclair/typebox';
import { CONTACT_ERRORS } from './shared/error-sets.js';
import { ContactId } from './shared/ids.js';
import type { Operation } from './shared/operation.js';
import { UpsertContactRequest } from './upsert-contact.js';

export const UPSERT_MANY_MAX = 1000;

export const UpsertContactsRequest = Type.Object(
  {
    contacts: Type.Array(UpsertContactRequest, {
      minItems: 1,
      maxItems: UPSERT_MANY_MAX,
      description:
        '1 to 1,000 contacts, each as POST /v1/contacts/upsert takes it, each email once; all are written or none',
    }),
  },
  { additionalProperties: false },
);
export type UpsertContactsRequest = Static<typeof UpsertContactsRequest>;

export const UpsertContactsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    created: Type.Integer({ minimum: 0 }),
    updated: Type.Integer({ minimum: 0 }),
    contactIds: Type.Array(ContactId, { description: 'in the order of the request' }),
  },
  { additionalProperties: false },
);
export type UpsertContactsResponse = Static<typeof UpsertContactsResponse>;

export const upsertContacts = {
  method: 'POST',
  path: '/v1/contacts/upsert-many',
  sdk: 'contacts.upsertMany',
  summary: 'Create or update up to 1,000 contacts, all or none (extension)',
  body: UpsertContactsRequest,
  response: UpsertContactsResponse,
  errors: CONTACT_ERRORS,
  example: {
    body: {
      contacts: [
        { email: 'jane@example.com', name: 'Jane Doe', groupSlugs: ['beta-testers'] },
        { email: 'omar@example.com', customFields: { company: 'Initech' } },
      ],
    },
    response: {
      ok: true,
      created: 1,
      updated: 1,
      contactIds: ['ct_01M81C1XJB7Y4KHB01G4B1P0M5', 'ct_01M81C1XJC3Q0V8W1Z2Y7N4K6R'],
    },
  },
} as const satisfies Operation;
