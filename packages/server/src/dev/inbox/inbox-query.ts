// The dev inbox's filters, shared by the page and the JSON API. The API reads its query strictly
// (a misspelt parameter would otherwise return every message, and an end-to-end test would read
// someone else's code); the page reads what it understands and ignores the rest.
import type { CapturedEntry } from '../../delivery/transports/capture.js';
import { parseTimestamp } from '../../domain/timestamp.js';

export interface InboxFilter {
  /** The full recipient address, any case. */
  to?: string;
  /** A template id (`login-code`, or `auth/login-code` as the wrapper names it), any case. */
  template?: string;
  /** A tenant id (`ten_…`). */
  tenant?: string;
  /** A project id (`prj_…`). */
  project?: string;
  /** An RFC 3339 date-time (checked by parseApiQuery): messages captured at or after it. */
  since?: string;
  /** Page search: part of the recipient address, subject or template id, any case. */
  q?: string;
}

export const API_LIMIT = { default: 50, max: 500 } as const;
export const PAGE_LIMIT = 200;

const templateKey = (id: string) => id.slice(id.lastIndexOf('/') + 1).toLowerCase();

export function matchesFilter(f: InboxFilter): (e: CapturedEntry) => boolean {
  const to = f.to?.trim().toLowerCase();
  const template = f.template ? templateKey(f.template.trim()) : undefined;
  const tenant = f.tenant?.trim().toLowerCase();
  const project = f.project?.trim().toLowerCase();
  // A since that is not a timestamp matches nothing (parseApiQuery refuses it before this).
  const since = f.since ? (parseTimestamp(f.since)?.getTime() ?? Number.NaN) : undefined;
  const q = f.q?.trim().toLowerCase();
  return (e) =>
    (!to || e.to.toLowerCase() === to) &&
    (!template || templateKey(e.templateId) === template) &&
    (!tenant || e.tenantId?.toLowerCase() === tenant) &&
    (!project || e.projectId?.toLowerCase() === project) &&
    (since === undefined || Date.parse(e.capturedAt) >= since) &&
    (!q || [e.to, e.subject, e.templateId].some((v) => v.toLowerCase().includes(q)));
}

export type QueryProblem = { path: string; message: string };

const MAX_VALUE_LENGTH = 320;

/** The filters of the API (every route that reads or deletes a set of messages), and `limit`. */
export const API_FILTERS = ['to', 'template', 'tenant', 'project', 'since'] as const;
export type ApiParameter = (typeof API_FILTERS)[number] | 'limit';

/**
 * The API's query: only `allowed` parameters (none for a route that names one message), each
 * once, each a string of 1 to 320 characters that is not only spaces (an empty `to=` would
 * otherwise match every address); `limit` an integer from 1 to 500; `since` an RFC 3339
 * date-time with its offset (`2026-11-22T10:15:30Z`), as parseTimestamp reads it: not a bare
 * year, date or number.
 */
export function parseApiQuery(
  query: unknown,
  allowed: readonly ApiParameter[],
): { ok: true; filter: InboxFilter; limit: number } | { ok: false; problems: QueryProblem[] } {
  const problems: QueryProblem[] = [];
  const values: Record<string, string> = {};
  const q = (query ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(q)) {
    const value = q[key];
    const path = `/query/${key}`;
    if (!(allowed as readonly string[]).includes(key))
      problems.push({
        path,
        message:
          allowed.length === 0
            ? 'is not a parameter of this route (it takes none)'
            : `is not a parameter of this route (${allowed.join(', ')})`,
      });
    else if (typeof value !== 'string') problems.push({ path, message: 'must be given once' });
    else if (value.length > MAX_VALUE_LENGTH)
      problems.push({ path, message: `must be at most ${MAX_VALUE_LENGTH} characters` });
    else values[key] = value;
  }
  let limit: number = API_LIMIT.default;
  if (values.limit !== undefined) {
    limit = /^[0-9]{1,4}$/.test(values.limit) ? Number(values.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= API_LIMIT.max))
      problems.push({ path: '/query/limit', message: `must be an integer from 1 to ${API_LIMIT.max}` });
  }
  if (values.since !== undefined && parseTimestamp(values.since) === null)
    problems.push({
      path: '/query/since',
      message: 'must be an RFC 3339 date-time with an offset, such as 2026-11-22T10:15:30Z',
    });
  for (const key of ['to', 'template', 'tenant', 'project'] as const)
    if (values[key] !== undefined && values[key].trim() === '')
      problems.push({ path: `/query/${key}`, message: 'must not be empty' });
  // `auth/login-code` names login-code; `auth/` or `/` names no template, and must not match all.
  if (
    values.template !== undefined &&
    values.template.trim() !== '' &&
    templateKey(values.template.trim()) === ''
  )
    problems.push({ path: '/query/template', message: 'must name a template, such as login-code' });
  if (problems.length > 0) return { ok: false, problems };
  const filter: InboxFilter = {};
  for (const key of API_FILTERS) if (values[key] !== undefined) filter[key] = values[key];
  return { ok: true, filter, limit };
}

/** The page's query: the filters it understands, as strings; anything else is ignored. */
export function parsePageQuery(query: unknown): InboxFilter {
  const q = (query ?? {}) as Record<string, unknown>;
  const filter: InboxFilter = {};
  for (const key of ['to', 'template', 'tenant', 'project', 'q'] as const) {
    const value = Object.hasOwn(q, key) ? q[key] : undefined;
    if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_VALUE_LENGTH)
      filter[key] = value.trim();
  }
  return filter;
}
