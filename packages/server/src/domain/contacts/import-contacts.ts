// `mailsvc contacts import` (extension, DESIGN.md §7): a CSV file into the contacts of the tenant
// that owns an environment. The header names the columns: `email` (required), `name`, and every
// other column a custom field (the key rules of the API). Each row is checked by the rules of
// POST /v1/contacts/upsert (the same schema, then the same write rules); an invalid row is
// reported with its line and skipped. Rows are written in batches through upsertContactRows, the
// set-wise write of upsert-many; an email seen again in the file updates the contact again, in
// file order. An empty cell sets nothing (it never clears a stored value).
import type { Readable } from 'node:stream';
import {
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELDS_MAX,
  GROUP_SLUG_PATTERN,
  type UpsertContactRequest,
} from '@mailsvc/contract/api';
import { findJsonInputProblems } from '@mailsvc/contract/json-input';
import { CsvError, parse } from 'csv-parse';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import {
  type ContactWrite,
  findEnvironmentTenant,
  upsertContactRows,
} from '../../db/repositories/contacts.js';
import type { ErrorDetail } from '../../errors.js';
import type { Deps } from '../deps.js';
import { schemaProblems, toContactWrite } from './contact-input.js';

/** Rows per write: measured in bench/import.ts (bench/RESULTS.md "Contacts import"). */
export const IMPORT_BATCH_SIZE = 5000;

/** Nothing can be imported: the file (its header, its CSV) or the command (the environment, --group). */
export class ImportRefusedError extends Error {
  constructor(
    message: string,
    /** The environment is unknown (a refused operation), rather than bad input. */
    readonly isNotFound = false,
  ) {
    super(message);
  }
}

export interface ImportProgress {
  /** Data rows read so far. */
  rows: number;
  /** Bytes of the file read so far. */
  bytes: number;
  created: number;
  updated: number;
  skipped: number;
}

export type ImportSummary = Omit<ImportProgress, 'bytes'>;

export interface ImportOptions {
  environmentId: string;
  /** The CSV file's bytes (UTF-8; a byte order mark is ignored). */
  input: Readable;
  /** A group every imported contact joins (created when missing); its other groups stay. */
  groupSlug?: string | undefined;
  batchSize?: number;
  /** Who runs it, for the audit event. */
  actor: string;
  /** After every batch written. */
  onProgress?: (p: ImportProgress) => void;
  /** A skipped row: its line in the file (the last line of a multi-line row) and why. */
  onSkippedRow?: (line: number, reason: string) => void;
}

interface Columns {
  email: number;
  name: number | undefined;
  /** Custom field key → column index. */
  fields: [string, number][];
  count: number;
}

const KEY = new RegExp(CUSTOM_FIELD_KEY_PATTERN);

/** The header row → column indexes; refused when a column is missing, repeated or not a key. */
export function readHeader(header: string[]): Columns {
  const names = header.map((h) => h.trim());
  const index = (name: string) => {
    const at = names.flatMap((n, i) => (n.toLowerCase() === name ? [i] : []));
    if (at.length > 1)
      throw new ImportRefusedError(`the header names the column "${name}" ${at.length} times`);
    return at[0];
  };
  const email = index('email');
  if (email === undefined)
    throw new ImportRefusedError(
      'the header row has no "email" column (the first line must name the columns)',
    );
  const name = index('name');
  const fields: [string, number][] = [];
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (i === email || i === name) return;
    // The API refuses the key too (a __proto__ member would set an object's prototype, not a field).
    if (n === '__proto__')
      throw new ImportRefusedError(
        `column ${i + 1} ("__proto__") cannot be a custom field: the name is reserved`,
      );
    if (!KEY.test(n))
      throw new ImportRefusedError(
        `column ${i + 1} ("${n}") cannot be a custom field: use letters, digits, _ and -, starting with a letter or _, at most 64 characters`,
      );
    if (seen.has(n)) throw new ImportRefusedError(`the header names the column "${n}" twice`);
    seen.add(n);
    fields.push([n, i]);
  });
  return { email, name, fields, count: names.length };
}

/** A data row as the body POST /v1/contacts/upsert would take; empty cells are left out. */
function toUpsertBody(cols: Columns, row: string[]): UpsertContactRequest {
  const body: UpsertContactRequest = { email: row[cols.email] ?? '' };
  const name = cols.name === undefined ? '' : (row[cols.name] ?? '');
  if (name !== '') body.name = name;
  const customFields: Record<string, string> = {};
  for (const [key, i] of cols.fields) if (row[i] !== undefined && row[i] !== '') customFields[key] = row[i]!;
  if (Object.keys(customFields).length > 0) body.customFields = customFields;
  return body;
}

/** A problem's path as the file names it: the column. */
const describe = (problems: ErrorDetail[]) =>
  problems
    .map((p) => {
      const column =
        p.path === '/customFields' ? 'custom fields' : p.path.replace(/^\/(customFields\/)?/, '');
      return `${column || 'row'}: ${p.message}`;
    })
    .join('; ');

/** A data row's contact, or why the row is skipped. */
function contactOfRow(
  cols: Columns,
  record: string[],
  now: Date,
): { ok: true; write: ContactWrite } | { ok: false; reason: string } {
  if (record.length !== cols.count)
    return { ok: false, reason: `has ${record.length} fields where the header has ${cols.count}` };
  const body = toUpsertBody(cols, record);
  const unstorable = findJsonInputProblems(body);
  const problems = unstorable.length > 0 ? unstorable : schemaProblems(body);
  if (problems.length > 0) return { ok: false, reason: describe(problems) };
  const parsed = toContactWrite(body, '', now);
  if (!parsed.ok) return { ok: false, reason: describe(parsed.problems) };
  return { ok: true, write: parsed.write };
}

/** The CSV reader: each record with its line and the bytes read; a row it cannot read goes to `onSkip`. */
function csvRecords(input: Readable, onSkip: (line: number, reason: string) => void) {
  const parser = input.pipe(
    parse({
      bom: true,
      // Every line ending ends a row, whichever the file mixes: csv-parse would otherwise take the
      // first line's for the whole file, and an LF after a CRLF header would join two rows into
      // one value. A line break inside quotes stays part of the value.
      record_delimiter: ['\r\n', '\n', '\r'],
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
    }),
  );
  parser.on('skip', (err: CsvError & { lines?: number }) =>
    onSkip(err.lines ?? 0, `not valid CSV: ${err.message}`),
  );
  return parser as AsyncIterable<{ record: string[]; info: { lines: number; bytes: number } }>;
}

/**
 * Contacts written in batches of `batchSize`, in file order: one batch is written while the next
 * is read (the next write waits for it), and an email already in the batch writes the batch first.
 */
function contactBatches(
  deps: Deps,
  target: { tenantId: string; groupSlug: string | undefined; batchSize: number },
  progress: ImportProgress,
  skip: (line: number, reason: string) => void,
  onProgress: ImportOptions['onProgress'],
) {
  let batch: ContactWrite[] = [];
  let lines: number[] = [];
  let emails = new Set<string>();
  let writing: Promise<void> = Promise.resolve();
  const write = async (writes: ContactWrite[], at: number[]) => {
    const result = await upsertContactRows(
      deps.db,
      {
        tenantId: target.tenantId,
        contacts: writes,
        ...(target.groupSlug !== undefined && { addGroupSlugs: [target.groupSlug] }),
        maxCustomFields: CUSTOM_FIELDS_MAX,
        isAllOrNothing: false,
      },
      deps.clock.now(),
    );
    progress.created += result.created;
    progress.updated += result.updated;
    for (const i of result.overLimit)
      skip(
        at[i]!,
        `custom fields: must leave at most ${CUSTOM_FIELDS_MAX} keys once merged into the stored fields`,
      );
    onProgress?.({ ...progress });
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const [writes, at] = [batch, lines];
    batch = [];
    lines = [];
    emails = new Set();
    await writing;
    writing = write(writes, at);
    // A failed write must not be left unobserved while the next batch is read.
    writing.catch(() => {});
  };
  return {
    async add(contact: ContactWrite, line: number) {
      // The same contact again: written after the rows before it.
      if (emails.has(contact.email)) await flush();
      batch.push(contact);
      lines.push(line);
      emails.add(contact.email);
      if (batch.length >= target.batchSize) await flush();
    },
    /** Writes what is left and waits for every write. */
    async finish() {
      await flush();
      await writing;
    },
    /** Waits for the write running, whatever its end (the import failed). */
    settle: () => writing.catch(() => {}),
  };
}

export async function importContacts(deps: Deps, opts: ImportOptions): Promise<ImportSummary> {
  if (opts.groupSlug !== undefined && !new RegExp(GROUP_SLUG_PATTERN).test(opts.groupSlug))
    throw new ImportRefusedError(
      `--group "${opts.groupSlug}" is not a group slug: lowercase letters, digits and hyphens, at most 63`,
    );
  const env = await findEnvironmentTenant(deps.db, opts.environmentId);
  if (!env) throw new ImportRefusedError(`No environment ${opts.environmentId}.`, true);
  const progress: ImportProgress = { rows: 0, bytes: 0, created: 0, updated: 0, skipped: 0 };
  const skip = (line: number, reason: string) => {
    progress.skipped++;
    opts.onSkippedRow?.(line, reason);
  };
  const batches = contactBatches(
    deps,
    { tenantId: env.tenantId, groupSlug: opts.groupSlug, batchSize: opts.batchSize ?? IMPORT_BATCH_SIZE },
    progress,
    skip,
    opts.onProgress,
  );
  const records = csvRecords(opts.input, (line, reason) => {
    progress.rows++;
    skip(line, reason);
  });
  let cols: Columns | undefined;
  try {
    for await (const { record, info } of records) {
      progress.bytes = info.bytes;
      if (!cols) {
        cols = readHeader(record);
        continue;
      }
      progress.rows++;
      const row = contactOfRow(cols, record, deps.clock.now());
      if (row.ok) await batches.add(row.write, info.lines);
      else skip(info.lines, row.reason);
    }
  } catch (err) {
    await batches.settle();
    if (err instanceof CsvError) throw new ImportRefusedError(`the file is not valid CSV: ${err.message}`);
    throw err;
  }
  if (!cols)
    throw new ImportRefusedError('the file is empty: the first line must name the columns (email, …)');
  await batches.finish();
  const summary: ImportSummary = {
    rows: progress.rows,
    created: progress.created,
    updated: progress.updated,
    skipped: progress.skipped,
  };
  await insertAuditEvent(
    deps.db,
    {
      tenantId: env.tenantId,
      actor: opts.actor,
      action: 'contacts.imported',
      targetType: 'environment',
      targetId: opts.environmentId,
      details: { ...summary, ...(opts.groupSlug !== undefined && { groupSlug: opts.groupSlug }) },
    },
    deps.clock.now(),
  );
  return summary;
}
