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
import { parseEmail } from '../email.js';
import { overLimitProblem, toContactWrite } from './contact-input.js';
import { INVALID_CONTACT } from './upsert-contact.js';

/**
 * The same contact named again at a later index: one problem there. Read from the raw items, so
 * it is reported with the schema's problems too (every problem in one answer), not only once the
 * body passes the schema.
 */
export function sameContactProblems(items: unknown): { index: number; problem: ErrorDetail }[] {
  if (!Array.isArray(items)) return [];
  const firstIndex = new Map<string, number>();
  const out: { index: number; problem: ErrorDetail }[] = [];
  items.forEach((item, i) => {
    const raw = (item as { email?: unknown } | null)?.email;
    const email = typeof raw === 'string' ? parseEmail(raw) : undefined;
    if (!email?.ok) return;
    const earlier = firstIndex.get(email.address);
    if (earlier === undefined) firstIndex.set(email.address, i);
    else
      out.push({
        index: i,
        problem: {
          path: `/contacts/${i}/email`,
          message: `is the same contact as /contacts/${earlier}/email`,
        },
      });
  });
  return out;
}

/** Problems in the order of the items they name (/contacts/2/… before /contacts/10/…). */
export function byIndex(problems: ErrorDetail[]): ErrorDetail[] {
  const indexOf = (p: ErrorDetail) => Number(/^\/contacts\/(\d+)/.exec(p.path)?.[1] ?? -1);
  return [...problems].sort((a, b) => indexOf(a) - indexOf(b));
}

export async function upsertContacts(
  deps: Deps,
  auth: AuthContext,
  input: UpsertContactsRequest,
): Promise<Omit<UpsertContactsResponse, 'ok'>> {
  const now = deps.clock.now();
  const problems: ErrorDetail[] = [];
  const writes: ContactWrite[] = [];
  const repeated = sameContactProblems(input.contacts);
  const isRepeated = new Set(repeated.map((p) => p.index));
  input.contacts.forEach((item, i) => {
    const parsed = toContactWrite(item, `/contacts/${i}`, now);
    if (!parsed.ok) problems.push(...parsed.problems);
    else if (!isRepeated.has(i)) writes.push(parsed.write);
  });
  problems.push(...repeated.map((p) => p.problem));
  if (problems.length > 0) throw new ApiError('invalid_request', INVALID_CONTACT, byIndex(problems));
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
