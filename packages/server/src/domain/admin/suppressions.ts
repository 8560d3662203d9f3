// `mailsvc admin suppressions export --environment ENV`: every suppression entry of an environment
// (DESIGN.md §12), newest first, for an operator's records or another system. The CLI writes it as
// CSV (`--json`: as JSON); the admin API answers JSON.
import { SUPPRESSION_REASONS, type Suppression } from '@mailsvc/contract/api';
import type { Static } from '@sinclair/typebox';
import { listSuppressionRows, type SuppressionPosition } from '../../db/repositories/suppressions.js';
import { toSuppression } from '../suppressions/suppression-entry.js';
import { IdOf, Strict } from './schemas.js';
import { type AdminDeps, requireEnvironment } from './scope.js';

const PAGE = 1000;

export const ExportSuppressionsInput = Strict({ environment: IdOf('env') });

export async function exportSuppressions(deps: AdminDeps, input: Static<typeof ExportSuppressionsInput>) {
  const env = await requireEnvironment(deps.db, input.environment);
  const now = deps.clock.now();
  const suppressions: Suppression[] = [];
  let after: SuppressionPosition | undefined;
  for (;;) {
    const rows = await listSuppressionRows(deps.db, {
      environmentId: env.id,
      reasons: SUPPRESSION_REASONS,
      ...(after && { after }),
      limit: PAGE,
      now,
    });
    suppressions.push(...rows.map(toSuppression));
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) break;
    after = { at: last.created_at, email: last.email, reason: last.reason };
  }
  return { environmentId: env.id, suppressions };
}

const COLUMNS = ['email', 'reason', 'createdAt', 'until', 'note'] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break; a value a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first) is prefixed with ' so it is
 * shown, not evaluated (a note or an address is the app's or a stranger's text).
 */
function cell(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The export as CSV: a header line, then one line per entry, CRLF-terminated. */
export function suppressionsCsv(result: Record<string, unknown>): string {
  const rows = (result.suppressions as Suppression[]).map((s) => COLUMNS.map((c) => cell(s[c])).join(','));
  return [COLUMNS.join(','), ...rows].join('\r\n');
}
