// A suppression entry as the API shows it (DESIGN.md §12), and the address a request names.
import type { Suppression } from '@mailsvc/contract/api';
import type { SuppressionRow } from '../../db/repositories/suppressions.js';
import { ApiError } from '../../errors.js';
import { parseEmail } from '../email.js';

export function toSuppression(row: SuppressionRow): Suppression {
  return {
    email: row.email,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
    until: row.until ? row.until.toISOString() : null,
    ...(row.note !== null && { note: row.note }),
  };
}

/** The normalised address of a request's `email`, or 400 invalid_request at /email. */
export function suppressionAddress(email: string): string {
  const parsed = parseEmail(email);
  if (!parsed.ok)
    throw new ApiError('invalid_request', `email ${parsed.reason}.`, [
      { path: '/email', message: parsed.reason },
    ]);
  return parsed.address;
}
