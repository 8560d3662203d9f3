// POST /v1/contacts/list: contacts searched and filtered, a page at a time (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { CONTACT_EXAMPLE, Contact } from './shared/contact.js';
import { ContactFilter } from './shared/contact-filter.js';
import { CONTACT_ERRORS } from './shared/error-sets.js';
import { ListCursor, NextCursor, PageSize } from './shared/list-fields.js';
import type { Operation } from './shared/operation.js';

export const LIST_PAGE_SIZE_DEFAULT = 50;
export const LIST_PAGE_SIZE_MAX = 200;
export const LIST_FILTERS_MAX = 20;

export const ListContactsRequest = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'a case-insensitive substring of the email or the name',
      }),
    ),
    filters: Type.Optional(
      Type.Array(ContactFilter, {
        maxItems: LIST_FILTERS_MAX,
        description: 'at most 20 clauses, all must hold',
      }),
    ),
    pageSize: PageSize(LIST_PAGE_SIZE_DEFAULT, LIST_PAGE_SIZE_MAX),
    cursor: ListCursor(200, 'the same search and filters'),
  },
  { additionalProperties: false },
);
export type ListContactsRequest = Static<typeof ListContactsRequest>;

export const ListContactsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    contacts: Type.Array(Contact, { description: 'by id: oldest first' }),
    nextCursor: NextCursor,
  },
  { additionalProperties: false },
);
export type ListContactsResponse = Static<typeof ListContactsResponse>;

export const listContacts = {
  method: 'POST',
  path: '/v1/contacts/list',
  sdk: 'contacts.list',
  summary: 'Contacts of the tenant, searched and filtered, a page at a time',
  body: ListContactsRequest,
  response: ListContactsResponse,
  errors: CONTACT_ERRORS,
  example: {
    body: {
      search: 'acme',
      filters: [
        { field: 'group', op: 'eq', value: 'beta-testers' },
        { field: 'status', op: 'in', value: ['active', 'unsubscribed'] },
      ],
      pageSize: 50,
    },
    response: {
      ok: true,
      contacts: [CONTACT_EXAMPLE],
      nextCursor: 'Y3RfMDFNODFDMVhKQjdZNEtIQjAxRzRCMVAwTTV-MTc2NDMyNDUzMDEyMw.q0vG3aF7bC1mX9pLr2sT8w',
    },
  },
} as const satisfies Operation;
