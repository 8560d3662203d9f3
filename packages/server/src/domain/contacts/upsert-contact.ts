// POST /v1/contacts/upsert (seed §4, DESIGN.md §7): creates or updates the tenant's contact of
// this email. name: absent leaves it, null clears it; groupSlugs: the exact set (missing groups
// created); customFields: merged key by key, null deletes, at most 50 keys after the merge.
import {
  CUSTOM_FIELDS_MAX,
  type UpsertContactRequest,
  type UpsertContactResponse,
} from '@mailsvc/contract/api';
import {
  CustomFieldsOverLimitError,
  findContactRecord,
  upsertContactRows,
} from '../../db/repositories/contacts.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { overLimitProblem, toContactWrite } from './contact-input.js';
import { contactScopeOf, toContact } from './contact-record.js';

export const INVALID_CONTACT = 'The request body is not valid.';

export async function upsertContact(
  deps: Deps,
  auth: AuthContext,
  input: UpsertContactRequest,
): Promise<Omit<UpsertContactResponse, 'ok'>> {
  const now = deps.clock.now();
  const parsed = toContactWrite(input, '', now);
  if (!parsed.ok) throw new ApiError('invalid_request', INVALID_CONTACT, parsed.problems);
  let id: string;
  try {
    const result = await upsertContactRows(
      deps.db,
      {
        tenantId: auth.tenantId,
        contacts: [parsed.write],
        maxCustomFields: CUSTOM_FIELDS_MAX,
        isAllOrNothing: true,
      },
      now,
    );
    id = result.ids[0]!;
  } catch (err) {
    if (err instanceof CustomFieldsOverLimitError)
      throw new ApiError('invalid_request', INVALID_CONTACT, [overLimitProblem('')]);
    throw err;
  }
  const row = await findContactRecord(deps.db, { ...contactScopeOf(auth), now }, { id });
  return { contact: toContact(row!) };
}
