// POST /v1/contacts/get (seed §4): one contact of the key's tenant by ct_… id or email, with its
// status and delivery summary in the key's environment.
import type { GetContactRequest, GetContactResponse } from '@mailsvc/contract/api';
import { findContactRecord } from '../../db/repositories/contacts.js';
import { ApiError } from '../../errors.js';
import { ULID_PATTERN } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { parseEmail } from '../email.js';
import { contactNotFound, contactScopeOf, toContact } from './contact-record.js';

export const CONTACT_ID = new RegExp(`^ct_${ULID_PATTERN}$`);

export async function getContact(
  deps: Deps,
  auth: AuthContext,
  input: GetContactRequest,
): Promise<Omit<GetContactResponse, 'ok'>> {
  const ref = input.emailOrContactId;
  let by: { id: string } | { email: string };
  if (CONTACT_ID.test(ref)) by = { id: ref };
  else {
    const email = parseEmail(ref);
    // Shaped like an id but not one: no such contact, as for an unknown id.
    if (!email.ok && ref.startsWith('ct_')) throw contactNotFound('/emailOrContactId');
    if (!email.ok)
      throw new ApiError('invalid_request', 'The request body is not valid.', [
        {
          path: '/emailOrContactId',
          message: `must be a contact id (ct_…) or an email address: ${email.reason}`,
        },
      ]);
    by = { email: email.address };
  }
  const row = await findContactRecord(deps.db, { ...contactScopeOf(auth), now: deps.clock.now() }, by);
  if (!row) throw contactNotFound('/emailOrContactId');
  return { contact: toContact(row) };
}
