// POST /v1/contacts/upsert-many (extension, DESIGN.md §7): up to 1,000 upserts, all or nothing.
// Every problem of every item is reported with its index (/contacts/3/email) and nothing is
// written; an email named twice is a problem at its later index. One transaction, one set-wise
// write (db/repositories/contacts.ts upsertContactRows).
import {
  CUSTOM_FIELDS_MAX,
  type UpsertContactsRequest,
  type UpsertContactsResponse,
} from '@mailsvc/contract/api';
import {
  type ContactWrite,
  CustomFieldsOverLimitError,
  upsertContactRows,
} from '../../db/repositories/contacts.js';
import { ApiError, type ErrorDetail } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { overLimitProblem, toContactWrite } from './contact-input.js';
import { INVALID_CONTACT } from './upsert-contact.js';

export async function upsertContacts(
  deps: Deps,
  auth: AuthContext,
  input: UpsertContactsRequest,
): Promise<Omit<UpsertContactsResponse, 'ok'>> {
  const now = deps.clock.now();
  const problems: ErrorDetail[] = [];
  const writes: ContactWrite[] = [];
  const firstIndex = new Map<string, number>();
  input.contacts.forEach((item, i) => {
    const parsed = toContactWrite(item, `/contacts/${i}`, now);
    if (!parsed.ok) {
      problems.push(...parsed.problems);
      return;
    }
    const earlier = firstIndex.get(parsed.write.email);
    if (earlier !== undefined) {
      problems.push({
        path: `/contacts/${i}/email`,
        message: `is the same contact as /contacts/${earlier}/email`,
      });
      return;
    }
    firstIndex.set(parsed.write.email, i);
    writes.push(parsed.write);
  });
  if (problems.length > 0) throw new ApiError('invalid_request', INVALID_CONTACT, problems);
  try {
    const result = await upsertContactRows(
      deps.db,
      { tenantId: auth.tenantId, contacts: writes, maxCustomFields: CUSTOM_FIELDS_MAX, isAllOrNothing: true },
      now,
    );
    return { created: result.created, updated: result.updated, contactIds: result.ids as string[] };
  } catch (err) {
    if (err instanceof CustomFieldsOverLimitError)
      throw new ApiError(
        'invalid_request',
        INVALID_CONTACT,
        err.indexes.map((i) => overLimitProblem(`/contacts/${i}`)),
      );
    throw err;
  }
}
