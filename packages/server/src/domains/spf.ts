// SPF records as the domain checker reads them (RFC 7208): the terms of a record, whether it holds
// the mechanism a return path must publish, its `all`, and how many DNS lookups a receiver makes
// to evaluate it — counted through every include: and redirect= target, fetched with the
// checker's resolver, against the limit of 10 (§4.6.4), with include loops caught.
import { type DnsResolver, dnsName } from './dns-resolver.js';

export type SpfQualifier = '+' | '-' | '~' | '?';

export interface SpfTerm {
  /** A mechanism (`include:x`, `ip4:…`, `-all`) or a modifier (`redirect=x`). */
  kind: 'mechanism' | 'modifier';
  qualifier: SpfQualifier;
  /** Lowercase: `include`, `ip4`, `all`, `redirect`. */
  name: string;
  /** What follows `:` or `=` (a mechanism's `/cidr` included), '' when nothing does. */
  value: string;
}

export interface SpfRecord {
  terms: SpfTerm[];
  /** The qualifier of the first `all`, null when the record has none. */
  all: SpfQualifier | null;
  redirect: string | null;
}

export interface SpfAnalysis {
  /** DNS-querying terms in the record and in every record it reaches. */
  lookups: number;
  /** True when the count stopped early (too many records to fetch): `lookups` is a lower bound. */
  partial: boolean;
  /** The include/redirect path that came back to a domain already on it, e.g. [a, b, a]. */
  loop: string[] | null;
  /** Targets whose record could not be fetched (a failed lookup), with why. */
  unresolved: { domain: string; reason: string }[];
  /** The required mechanism is in the record, or in a record it includes or redirects to. */
  hasMechanism: boolean;
  all: SpfQualifier | null;
}

/** The terms that cost a DNS lookup when evaluated (RFC 7208 §4.6.4). */
export const LOOKUP_TERMS: ReadonlySet<string> = new Set(['include', 'a', 'mx', 'ptr', 'exists', 'redirect']);
export const MAX_SPF_LOOKUPS = 10;
/** Records fetched at most for one count: past this the count is reported as a lower bound. */
const MAX_FETCHES = 40;

export const isSpfRecord = (txt: string): boolean => /^v=spf1(\s|$)/i.test(txt.trim());

export function parseSpf(txt: string): SpfRecord {
  const terms: SpfTerm[] = [];
  for (const token of txt.trim().split(/\s+/).slice(1)) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(token);
    if (modifier) {
      terms.push({ kind: 'modifier', qualifier: '+', name: modifier[1]!.toLowerCase(), value: modifier[2]! });
      continue;
    }
    const qualifier = '+-~?'.includes(token[0]!) ? (token[0] as SpfQualifier) : '+';
    const body = qualifier === token[0] ? token.slice(1) : token;
    const m = /^([a-z0-9]+)[:/]?(.*)$/i.exec(body);
    const name = (m?.[1] ?? body).toLowerCase();
    const value = body.slice(name.length).replace(/^:/, '');
    terms.push({ kind: 'mechanism', qualifier, name, value });
  }
  const all = terms.find((t) => t.kind === 'mechanism' && t.name === 'all');
  const redirect = terms.find((t) => t.kind === 'modifier' && t.name === 'redirect');
  return { terms, all: all?.qualifier ?? null, redirect: redirect?.value ?? null };
}

/** `+IP4:203.0.113.7/32` and `ip4:203.0.113.7` alike; `include:x.` and `include:x` alike. */
export function normalizeMechanism(term: string): string {
  return term
    .trim()
    .toLowerCase()
    .replace(/^\+/, '')
    .replace(/\.$/, '')
    .replace(/^(ip4:[^/]+)\/32$/, '$1')
    .replace(/^(ip6:[^/]+)\/128$/, '$1');
}

/** The record holds `mechanism` with a pass qualifier. */
export function hasMechanism(record: SpfRecord, mechanism: string): boolean {
  const wanted = normalizeMechanism(mechanism);
  return record.terms.some(
    (t) =>
      t.kind === 'mechanism' &&
      t.qualifier === '+' &&
      normalizeMechanism(t.value ? `${t.name}:${t.value}` : t.name) === wanted,
  );
}

/** The domains a record sends the evaluation on to: pass includes, and redirect= without an all. */
function targetsOf(record: SpfRecord): string[] {
  const includes = record.terms
    .filter((t) => t.kind === 'mechanism' && t.name === 'include' && t.qualifier === '+')
    .map((t) => t.value);
  const redirect = record.redirect && record.all === null ? [record.redirect] : [];
  // A target built from macros (%{d}) depends on the message: it cannot be fetched here.
  return [...includes, ...redirect].filter((d) => d && !d.includes('%')).map(dnsName);
}

interface Walk {
  resolver: DnsResolver;
  mechanism: string;
  fetches: number;
  out: SpfAnalysis;
}

async function walk(w: Walk, record: SpfRecord, path: string[]): Promise<void> {
  const { out } = w;
  // redirect= is not followed when the record has an all (§6.1), so it costs nothing then.
  const counted = record.terms.filter(
    (t) => LOOKUP_TERMS.has(t.name) && !(t.name === 'redirect' && record.all),
  );
  out.lookups += counted.length;
  if (hasMechanism(record, w.mechanism)) out.hasMechanism = true;
  await Promise.all(
    targetsOf(record).map(async (target) => {
      if (path.includes(target)) {
        out.loop ??= [...path, target];
        return;
      }
      if (w.fetches >= MAX_FETCHES) {
        out.partial = true;
        return;
      }
      w.fetches++;
      const found = await w.resolver.txt(target);
      if (found.kind === 'unknown') out.unresolved.push({ domain: target, reason: found.reason });
      const spf = found.kind === 'found' ? found.values.filter(isSpfRecord) : [];
      // None, or several, is a permanent error for a receiver: nothing more is looked up there.
      if (spf.length === 1) await walk(w, parseSpf(spf[0]!), [...path, target]);
    }),
  );
}

/**
 * Reads `txt` (the SPF record at `domain`): whether it holds `mechanism` (directly or through an
 * include), its `all`, and its DNS lookups counted through every include and redirect.
 */
export async function analyzeSpf(
  resolver: DnsResolver,
  domain: string,
  txt: string,
  mechanism: string,
): Promise<SpfAnalysis> {
  const record = parseSpf(txt);
  const out: SpfAnalysis = {
    lookups: 0,
    partial: false,
    loop: null,
    unresolved: [],
    hasMechanism: false,
    all: record.all,
  };
  await walk({ resolver, mechanism, fetches: 0, out }, record, [dnsName(domain)]);
  return out;
}
