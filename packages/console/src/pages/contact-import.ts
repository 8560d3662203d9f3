// A CSV file of contacts read into upserts and sent through POST /v1/contacts/upsert-many, a batch
// of the contract's maximum at a time, one after another. The columns follow `mailsvc contacts
// import`: `email` (required), `name`, and every other column a custom field; a `groupSlugs`
// column (slugs separated by spaces, commas or semicolons) sets each contact's groups. An empty
// cell sets nothing. upsert-many is all or none: when it refuses items (invalid_request naming
// /contacts/N/…) those rows are listed as refused and the rest of the batch is sent again.
import type {
  CUSTOM_FIELD_KEY_PATTERN as KeyPattern,
  GROUP_SLUG_PATTERN as SlugPattern,
  UPSERT_MANY_MAX,
} from '@mailsvc/contract/api';
import { type Mailsvc, MailsvcError } from '../sdk.js';
import { CsvError, parseCsv } from './csv.js';

/** Contacts per upsert-many call: the contract's UPSERT_MANY_MAX (tsc checks they agree). */
export const IMPORT_BATCH_SIZE: typeof UPSERT_MANY_MAX = 1000;
const KEY_PATTERN: typeof KeyPattern = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';
const SLUG_PATTERN: typeof SlugPattern = '^[a-z0-9][a-z0-9-]{0,62}$';
const KEY = new RegExp(KEY_PATTERN);
export const GROUP_SLUG = new RegExp(SLUG_PATTERN);

type ContactInput = Parameters<Mailsvc['contacts']['upsertMany']>[0]['contacts'][number];

export interface ImportRow {
  /** The record's number in the file, the header being row 1. */
  row: number;
  contact: ContactInput;
}

export interface Refusal {
  row: number;
  email: string;
  reason: string;
}

export interface ImportPlan {
  rows: ImportRow[];
  /** Rows refused before sending (a wrong number of fields, no email). */
  refused: Refusal[];
  /** What the header means beyond email and name: custom fields, ignored columns. */
  notes: string[];
}

/** The file cannot be imported at all (its CSV or its header). */
export class ImportFileError extends Error {}

interface Columns {
  email: number;
  name: number | undefined;
  groups: number | undefined;
  fields: [string, number][];
  count: number;
  notes: string[];
}

function readHeader(header: string[]): Columns {
  const names = header.map((h) => h.trim());
  const index = (name: string) => {
    const at = names.flatMap((n, i) => (n.toLowerCase() === name.toLowerCase() ? [i] : []));
    if (at.length > 1) throw new ImportFileError(`The header names the column "${name}" ${at.length} times.`);
    return at[0];
  };
  const email = index('email');
  if (email === undefined)
    throw new ImportFileError('The header row has no "email" column: the first row must name the columns.');
  const cols: Columns = {
    email,
    name: index('name'),
    groups: index('groupSlugs'),
    fields: [],
    count: names.length,
    notes: [],
  };
  const seen = new Set<string>();
  const ignored: string[] = [];
  names.forEach((n, i) => {
    if (i === email || i === cols.name || i === cols.groups) return;
    if (n === '__proto__' || !KEY.test(n) || seen.has(n)) ignored.push(`column ${i + 1} ("${n}")`);
    else {
      seen.add(n);
      cols.fields.push([n, i]);
    }
  });
  if (cols.fields.length > 0) cols.notes.push(`Custom fields: ${cols.fields.map(([n]) => n).join(', ')}.`);
  if (ignored.length > 0)
    cols.notes.push(
      `Ignored ${ignored.join(', ')}: a custom field's name is letters, digits, _ and -, starting with a letter or _, at most 64 characters, each once.`,
    );
  return cols;
}

function toContact(cols: Columns, record: string[]): ContactInput {
  const contact: ContactInput = { email: (record[cols.email] ?? '').trim() };
  const name = cols.name === undefined ? '' : (record[cols.name] ?? '');
  if (name !== '') contact.name = name;
  const groups = cols.groups === undefined ? '' : (record[cols.groups] ?? '').trim();
  if (groups !== '') contact.groupSlugs = [...new Set(groups.split(/[\s,;]+/).filter(Boolean))];
  const customFields: Record<string, string> = {};
  for (const [key, i] of cols.fields) {
    const value = record[i];
    if (value !== undefined && value !== '') customFields[key] = value;
  }
  if (Object.keys(customFields).length > 0) contact.customFields = customFields;
  return contact;
}

/** The file's text → the rows to send, the rows refused already, and notes on its columns. */
export function planImport(text: string): ImportPlan {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvError) throw new ImportFileError(`The file is not valid CSV: ${e.message}.`);
    throw e;
  }
  const [header, ...data] = records;
  if (!header) throw new ImportFileError('The file is empty.');
  const cols = readHeader(header);
  const plan: ImportPlan = { rows: [], refused: [], notes: cols.notes };
  data.forEach((record, i) => {
    const row = i + 2;
    if (record.length === 1 && record[0]?.trim() === '') return; // a blank line
    const email = (record[cols.email] ?? '').trim();
    if (record.length !== cols.count)
      plan.refused.push({
        row,
        email,
        reason: `has ${record.length} fields where the header has ${cols.count}`,
      });
    else if (email === '') plan.refused.push({ row, email, reason: 'email: the cell is empty' });
    else plan.rows.push({ row, contact: toContact(cols, record) });
  });
  if (plan.rows.length + plan.refused.length === 0) throw new ImportFileError('The file has no data rows.');
  return plan;
}

/** A problem's path inside one item (/contacts/3/customFields/plan) as the file names it (plan). */
function column(rest: string): string {
  if (rest === '' || rest === '/customFields') return rest === '' ? 'row' : 'custom fields';
  return rest.replace(/^\/(customFields\/)?/, '').replace(/\/\d+$/, '');
}

/**
 * The batch's refused items by index, with reasons, from an upsert-many error; null when the
 * error names no item (then it is not about the rows, and the import stops).
 */
function refusedItems(error: unknown, batch: ImportRow[]): Map<number, string[]> | null {
  if (!(error instanceof MailsvcError) || error.code !== 'invalid_request') return null;
  const out = new Map<number, string[]>();
  const rowOf = (i: string) => `row ${batch[Number(i)]?.row ?? '?'}`;
  for (const d of error.details) {
    const m = /^\/contacts\/(\d+)(\/.*)?$/.exec(d.path);
    const index = m ? Number(m[1]) : Number.NaN;
    if (!m || !batch[index]) return null;
    const message = d.message.replace(/\/contacts\/(\d+)(\/[\w/-]*)?/g, (_, i: string) => rowOf(i));
    out.set(index, [...(out.get(index) ?? []), `${column(m[2] ?? '')}: ${message}`]);
  }
  return out.size > 0 ? out : null;
}

export interface ImportState {
  /** Rows written so far. */
  imported: number;
  refused: Refusal[];
}

/**
 * Sends `batch` until upsert-many takes what is left of it, refusing the rows it names; then adds
 * the written contacts to `groupSlug`. Throws on any other error.
 */
async function sendBatch(client: Mailsvc, batch: ImportRow[], groupSlug: string, state: ImportState) {
  let pending = batch;
  while (pending.length > 0) {
    try {
      await client.contacts.upsertMany({ contacts: pending.map((r) => r.contact) });
      break;
    } catch (e) {
      const refused = refusedItems(e, pending);
      if (!refused) throw e;
      for (const [i, reasons] of refused) {
        const r = pending[i]!;
        state.refused.push({ row: r.row, email: r.contact.email, reason: reasons.join('; ') });
      }
      pending = pending.filter((_, i) => !refused.has(i));
    }
  }
  if (pending.length === 0) return;
  if (groupSlug) {
    const contactIds = [...new Set(pending.map((r) => r.contact.email))];
    await client.contacts.groups.add({ groupSlug, contactIds });
  }
  state.imported += pending.length;
}

/**
 * Imports the plan's rows a batch at a time, calling `onProgress` after each batch; stops (throws)
 * on an error that is not about rows, or when `isStopped()` says so between batches.
 */
export async function runImport(
  client: Mailsvc,
  plan: ImportPlan,
  groupSlug: string,
  onProgress: (state: ImportState) => void,
  isStopped: () => boolean,
): Promise<ImportState> {
  const state: ImportState = { imported: 0, refused: [...plan.refused] };
  onProgress({ ...state, refused: [...state.refused] });
  for (let from = 0; from < plan.rows.length && !isStopped(); from += IMPORT_BATCH_SIZE) {
    await sendBatch(client, plan.rows.slice(from, from + IMPORT_BATCH_SIZE), groupSlug, state);
    state.refused.sort((a, b) => a.row - b.row);
    onProgress({ ...state, refused: [...state.refused] });
  }
  return state;
}
