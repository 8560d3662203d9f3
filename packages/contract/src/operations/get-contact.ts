// POST /v1/contacts/get: one contact, by id or email (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { CONTACT_EXAMPLE } from './shared/contact.js';
import { CONTACT_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';
import { UpsertContactResponse } from './upsert-contact.js';

export const GetContactRequest = Type.Object(
  {
    emailOrContactId: Type.String({ minLength: 1, maxLength: 320, description: 'a ct_… id or an email' }),
  },
  { additionalProperties: false },
);
export type GetContactRequest = Static<typeof GetContactRequest>;

export const GetContactResponse = UpsertContactResponse;
export type GetContactResponse = Static<typeof GetContactResponse>;

export const getContact = {
  method: 'POST',
  path: '/v1/contacts/get',
  sdk: 'contacts.get',
  summary: 'One contact, by id or email, with its status and delivery summary',
  body: GetContactRequest,
  response: GetContactResponse,
  errors: [...CONTACT_ERRORS, 'contact_not_found'],
  example: {
    body: { emailOrContactId: 'jane@example.com' },
    response: { ok: true, contact: CONTACT_EXAMPLE },
  },
} as const satisfies Operation;
