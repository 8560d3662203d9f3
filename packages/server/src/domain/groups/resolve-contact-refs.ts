// The contacts a request names (`contactIds` of groups add and remove): each item is a contact id
// (ct_…) or an email, normalised as contacts store it (DESIGN.md §7: a contact is addressed by
// either). An item that is neither is a 400 with its path; items that name no contact of the
// tenant are one 404 contact_not_found listing each path, so the caller changes nothing.
import { findContactsByIdOrEmail } from '../../db/repositories/groups.js';
import type { Db } from '../../db/schema.js';
import { ApiError, type ErrorDetail } from '../../errors.js';
import { ULID_PATTERN } from '../../ids.js';
import { parseEmail } from '../email.js';

const CONTACT_ID = new RegExp(`^ct_${ULID_PATTERN}$`);

export type ContactRef = { kind: 'id'; id: string } | { kind: 'email'; email: string };

/** 400 invalid_request naming each item that is neither a contact id nor an address. */
export function parseContactRefs(pointer: string, items: readonly string[]): ContactRef[] {
  const refs: ContactRef[] = [];
  const problems: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const parsed = CONTACT_ID.test(item) ? undefined : parseEmail(item);
    if (parsed === undefined) refs.push({ kind: 'id', id: item });
    else if (parsed.ok) refs.push({ kind: 'email', email: parsed.address });
    else
      problems.push({ path: `${pointer}/${i}`, message: 'must be a contact id (ct_…) or an email address' });
  });
  if (problems.length > 0)
    throw new ApiError('invalid_request', 'Name each contact by its id (ct_…) or its email.', problems);
  return refs;
}

/**
 * The ids of the tenant's contacts the refs name, without repeats (an id and the same
 * contact's email are one contact). `isLocked`: the contacts stay until the transaction ends.
 */
export async function resolveContactRefs(
  db: Db,
  q: { tenantId: string; pointer: string; refs: readonly ContactRef[]; isLocked: boolean },
): Promise<string[]> {
  const { refs } = q;
  const rows = await findContactsByIdOrEmail(db, {
    tenantId: q.tenantId,
    ids: refs.flatMap((r) => (r.kind === 'id' ? [r.id] : [])),
    emails: refs.flatMap((r) => (r.kind === 'email' ? [r.email] : [])),
    isLocked: q.isLocked,
  });
  const byId = new Set(rows.map((r) => r.id));
  const idByEmail = new Map(rows.map((r) => [r.email, r.id]));
  const ids = new Set<string>();
  const unknown: ErrorDetail[] = [];
  refs.forEach((ref, i) => {
    const id = ref.kind === 'id' ? (byId.has(ref.id) ? ref.id : undefined) : idByEmail.get(ref.email);
    if (id !== undefined) ids.add(id);
    else
      unknown.push({
        path: `${q.pointer}/${i}`,
        message: `no contact of the tenant has this ${ref.kind === 'id' ? 'id' : 'email'}`,
      });
  });
  if (unknown.length > 0)
    throw new ApiError(
      'contact_not_found',
      `${unknown.length === 1 ? 'One contact was' : `${unknown.length} contacts were`} not found in the tenant; nothing changed.`,
      unknown,
    );
  return [...ids];
}
