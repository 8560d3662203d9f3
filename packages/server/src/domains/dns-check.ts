// The DNS check of a sending domain: each DKIM selector's key, the return path's MX and SPF at
// bounces.<domain>, and the domain's DMARC policy (reported, never required), each with a state
// (verified, missing, wrong, unknown) and problems that tell the tenant what to change. A lookup
// that fails (SERVFAIL, a timeout) makes a record unknown, never missing. Lookups go through the
// checker's resolver (dns-resolver.ts), concurrently where they do not depend on each other.
import { createPublicKey } from 'node:crypto';
import { type DnsResolver, dnsName, type Lookup, type MxValue } from './dns-resolver.js';
import { analyzeSpf, isSpfRecord, MAX_SPF_LOOKUPS } from './spf.js';

export type RecordPurpose = 'dkim' | 'return_path_mx' | 'return_path_spf' | 'dmarc';
export type RecordState = 'verified' | 'missing' | 'wrong' | 'unknown';

/** `message`: one sentence telling the tenant what to change. */
export interface RecordProblem {
  code: string;
  message: string;
}

export interface RecordCheck {
  purpose: RecordPurpose;
  /** The name checked: lowercase, no trailing dot. */
  host: string;
  type: 'TXT' | 'MX';
  /** DKIM only. */
  selector?: string;
  state: RecordState;
  /** What DNS answered: each TXT record's strings joined; MX as "10 mx.example.net". */
  found: string[];
  problems: RecordProblem[];
}

export interface DomainExpectation {
  /** "example.com" */
  domain: string;
  /** Each selector to check; its p= must equal publicKeyBase64 (the SPKI, base64). */
  dkim: { selector: string; publicKeyBase64: string }[];
  /** host: "bounces.example.com"; spfMechanism: "include:_spf.mailsvc.example" or "ip4:203.0.113.7". */
  returnPath: { host: string; mxHost: string; spfMechanism: string };
}

export interface DmarcReport {
  state: RecordState;
  policy: 'none' | 'quarantine' | 'reject' | null;
  found: string[];
  problems: RecordProblem[];
  /** How DKIM (d=<domain>) and SPF (the return path, relaxed) align with the policy's adkim/aspf. */
  alignment: string;
}

/** Keys shorter than this are refused by large mailbox providers. */
export const MIN_DKIM_BITS = 2048;

type Draft = { state: RecordState; problems: RecordProblem[] };
const problem = (code: string, message: string): RecordProblem => ({ code, message });
const couldNotCheck = (host: string, reason: string): Draft => ({
  state: 'unknown',
  problems: [
    problem(
      'could_not_check',
      `We could not check ${host}: ${reason}; nothing to change yet, we will try again.`,
    ),
  ],
});

/** Semicolon-separated tag=value pairs (DKIM and DMARC records), tags lowercase. */
export function parseTags(txt: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of txt.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return tags;
}

/** The modulus length of a DER public key (SPKI, or the bare RSA key some publish), else null. */
function rsaBits(der: Buffer): number | null {
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      return createPublicKey({ key: der, format: 'der', type }).asymmetricKeyDetails?.modulusLength ?? 0;
    } catch {
      // not this encoding
    }
  }
  return null;
}

/**
 * rsaBits of a p= value, remembered: the same keys come back at every check, and parsing one was
 * most of a check's CPU in a sweep's profile.
 */
const BITS_OF_P = new Map<string, number | null>();
function rsaBitsOf(p: string): number | null {
  let bits = BITS_OF_P.get(p);
  if (bits === undefined) {
    if (BITS_OF_P.size >= 10_000) BITS_OF_P.clear();
    bits = rsaBits(Buffer.from(p, 'base64'));
    BITS_OF_P.set(p, bits);
  }
  return bits;
}

/** One TXT record at a DKIM name against the expected key: does it match, and what is wrong with it. */
function judgeDkimRecord(
  txt: string,
  expectedKey: string,
  host: string,
): { matches: boolean; problems: RecordProblem[] } {
  const malformed = (why: string) => ({
    matches: false,
    problems: [
      problem(
        'dkim_record_malformed',
        `The TXT record at ${host} ${why}: replace its value with the DKIM record shown.`,
      ),
    ],
  });
  const tags = parseTags(txt);
  const version = tags.get('v');
  if (version !== undefined && version !== 'DKIM1')
    return malformed(`has v=${version} where v=DKIM1 belongs`);
  const p = tags.get('p');
  if (p === undefined) return malformed('has no p= tag (the public key)');
  const key = p.replace(/\s+/g, '');
  if (key === '') return malformed('has an empty p=, which means the key is revoked');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0)
    return malformed('has a p= that is not valid base64');
  const keyType = (tags.get('k') ?? 'rsa').toLowerCase();
  const matches = keyType === 'rsa' && key === expectedKey.replace(/\s+/g, '');
  const bits = rsaBitsOf(key);
  if (bits === null) return malformed('has a p= that is not a public key');
  const problems: RecordProblem[] = [];
  if (!matches)
    problems.push(
      problem(
        'dkim_key_mismatch',
        `The DKIM key at ${host} is not this domain's: replace the record's value with the one shown.`,
      ),
    );
  if (keyType === 'rsa' && bits > 0 && bits < MIN_DKIM_BITS)
    problems.push(
      problem(
        'dkim_key_too_short',
        `The DKIM key at ${host} is ${bits} bits, under ${MIN_DKIM_BITS}: publish the ${MIN_DKIM_BITS}-bit key shown.`,
      ),
    );
  return { matches, problems };
}

function judgeDkim(values: string[], expectedKey: string, host: string): Draft {
  const verdicts = values.map((v) => judgeDkimRecord(v, expectedKey, host));
  const good = verdicts.filter((v) => v.matches && v.problems.length === 0);
  const each = uniqueProblems(verdicts.flatMap((v) => v.problems));
  if (values.length === 1) return { state: good.length ? 'verified' : 'wrong', problems: each };
  const several = problem(
    'several_dkim_records',
    `${host} has ${values.length} TXT records: keep only the DKIM record shown and delete the others.`,
  );
  // Exactly one right key still signs and verifies: a warning, not a failure.
  return good.length === 1
    ? { state: 'verified', problems: [several] }
    : { state: 'wrong', problems: [several, ...each] };
}

function uniqueProblems(problems: RecordProblem[]): RecordProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(p.message) && seen.add(p.message));
}

/**
 * The records of a type at `host`, and whether some of them sit beside a CNAME there (an illegal
 * zone: they are not the CNAME target's records). A lookup that fails makes it unknown.
 */
async function lookupAt<T>(
  resolver: DnsResolver,
  host: string,
  get: (name: string) => Promise<Lookup<T> & { chain?: string[] }>,
  key: (value: T) => string,
): Promise<{ lookup: Lookup<T>; beside: boolean }> {
  const [direct, alias] = await Promise.all([get(host), resolver.cname(host)]);
  if (direct.kind !== 'found' || alias.kind === 'absent' || direct.chain?.length)
    return { lookup: direct, beside: false };
  if (alias.kind === 'unknown') return { lookup: alias, beside: false };
  const target = await get(alias.values[0]!);
  if (target.kind === 'unknown') return { lookup: target, beside: false };
  const theirs = new Set(target.kind === 'found' ? target.values.map(key) : []);
  return { lookup: direct, beside: direct.values.some((v) => !theirs.has(key(v))) };
}

const besideProblem = (host: string, type: string) =>
  problem(
    'cname_beside_other_records',
    `${host} has a CNAME and other ${type} records beside it, which DNS does not allow: delete the CNAME or the other records.`,
  );

/**
 * A record missing at `host` may be at `host.<domain>`: a DNS provider that appends the zone to
 * the name typed in. The state stays missing; the problem says what to type instead.
 */
async function withDoubledSuffix(
  draft: Draft,
  host: string,
  domain: string,
  present: (name: string) => Promise<boolean>,
): Promise<Draft> {
  if (draft.state !== 'missing') return draft;
  const doubled = `${host}.${domain}`;
  if (!(await present(doubled))) return draft;
  const short = host === domain ? '@' : host.slice(0, -(domain.length + 1));
  const message = `The record is at ${doubled}: your DNS provider appended the zone, so enter only the part before .${domain} (${short}).`;
  return { ...draft, problems: [...draft.problems, problem('doubled_zone_suffix', message)] };
}

const txtPresent = (resolver: DnsResolver, accept: (txt: string) => boolean) => async (name: string) => {
  const found = await resolver.txt(name);
  return found.kind === 'found' && found.values.some(accept);
};

async function checkDkim(
  resolver: DnsResolver,
  domain: string,
  key: { selector: string; publicKeyBase64: string },
): Promise<RecordCheck> {
  const host = dnsName(`${key.selector}._domainkey.${domain}`);
  const { lookup, beside } = await lookupAt(resolver, host, resolver.txt, (v) => v);
  const found = lookup.kind === 'found' ? lookup.values : [];
  let draft: Draft;
  if (lookup.kind === 'unknown') draft = couldNotCheck(host, lookup.reason);
  else if (lookup.kind === 'absent') draft = { state: 'missing', problems: [] };
  else draft = judgeDkim(lookup.values, key.publicKeyBase64, host);
  if (beside) draft = { state: 'wrong', problems: [besideProblem(host, 'TXT'), ...draft.problems] };
  draft = await withDoubledSuffix(
    draft,
    host,
    domain,
    txtPresent(resolver, () => true),
  );
  return { purpose: 'dkim', host, type: 'TXT', selector: key.selector, found, ...draft };
}

async function checkReturnPathMx(resolver: DnsResolver, exp: DomainExpectation): Promise<RecordCheck> {
  const host = dnsName(exp.returnPath.host);
  const mxText = (r: MxValue) => `${r.priority} ${r.exchange}`;
  const { lookup, beside } = await lookupAt(resolver, host, resolver.mx, mxText);
  const records = lookup.kind === 'found' ? [...lookup.values].sort((a, b) => a.priority - b.priority) : [];
  const wanted = dnsName(exp.returnPath.mxHost);
  let draft: Draft;
  if (lookup.kind === 'unknown') draft = couldNotCheck(host, lookup.reason);
  else if (lookup.kind === 'absent') draft = { state: 'missing', problems: [] };
  else if (records.some((r) => r.exchange === wanted)) draft = { state: 'verified', problems: [] };
  else {
    const elsewhere = records.map((r) => r.exchange).join(', ');
    const message = `The MX record at ${host} points to ${elsewhere}: change it to ${wanted}.`;
    draft = { state: 'wrong', problems: [problem('mx_points_elsewhere', message)] };
  }
  if (beside) draft = { state: 'wrong', problems: [besideProblem(host, 'MX'), ...draft.problems] };
  draft = await withDoubledSuffix(draft, host, dnsName(exp.domain), async (name) => {
    return (await resolver.mx(name)).kind === 'found';
  });
  return { purpose: 'return_path_mx', host, type: 'MX', found: records.map(mxText), ...draft };
}

async function judgeSpf(resolver: DnsResolver, host: string, txt: string, mechanism: string): Promise<Draft> {
  const spf = await analyzeSpf(resolver, host, txt, mechanism);
  const problems: RecordProblem[] = [];
  if (!spf.hasMechanism)
    problems.push(
      problem(
        'spf_mechanism_missing',
        `The SPF record at ${host} lacks ${mechanism}: add it before the all term.`,
      ),
    );
  if (spf.loop) {
    const path = spf.loop.join(' → ');
    const message = `The SPF record at ${host} includes itself in a loop (${path}), so its lookups never end: remove the include that loops.`;
    problems.push(problem('spf_too_many_lookups', message));
  } else if (spf.lookups > MAX_SPF_LOOKUPS) {
    const count = `${spf.partial ? 'at least ' : ''}${spf.lookups}`;
    const message = `The SPF record at ${host} needs ${count} DNS lookups, over the limit of ${MAX_SPF_LOOKUPS}: remove includes or replace them with ip4:/ip6: terms.`;
    problems.push(problem('spf_too_many_lookups', message));
  }
  const wrong = problems.length > 0;
  if (spf.all === '+' || spf.all === '?')
    problems.push(
      problem(
        'spf_allows_all',
        `The SPF record at ${host} ends in ${spf.all}all, which lets any server send as it: end it with -all.`,
      ),
    );
  if (wrong) return { state: 'wrong', problems };
  // The count is short of the records that could not be fetched: not known to be within the limit.
  const failed = spf.unresolved[0];
  if (failed)
    return {
      state: 'unknown',
      problems: [...couldNotCheck(failed.domain, failed.reason).problems, ...problems],
    };
  return { state: 'verified', problems };
}

async function checkReturnPathSpf(resolver: DnsResolver, exp: DomainExpectation): Promise<RecordCheck> {
  const host = dnsName(exp.returnPath.host);
  const { lookup, beside } = await lookupAt(resolver, host, resolver.txt, (v) => v);
  const found = lookup.kind === 'found' ? lookup.values : [];
  const spf = found.filter(isSpfRecord);
  let draft: Draft;
  if (lookup.kind === 'unknown') draft = couldNotCheck(host, lookup.reason);
  else if (spf.length === 0) draft = { state: 'missing', problems: [] };
  else if (spf.length > 1) {
    const message = `${host} has ${spf.length} SPF records, which receivers treat as an error: merge them into one.`;
    draft = { state: 'wrong', problems: [problem('several_spf_records', message)] };
  } else draft = await judgeSpf(resolver, host, spf[0]!, exp.returnPath.spfMechanism);
  if (beside) draft = { state: 'wrong', problems: [besideProblem(host, 'TXT'), ...draft.problems] };
  draft = await withDoubledSuffix(draft, host, dnsName(exp.domain), txtPresent(resolver, isSpfRecord));
  return { purpose: 'return_path_spf', host, type: 'TXT', found, ...draft };
}

const isDmarcRecord = (txt: string) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(txt.trim());

function alignmentOf(domain: string, returnPath: string, tags: Map<string, string> | null): string {
  const adkim = tags?.get('adkim')?.toLowerCase() === 's' ? 's' : 'r';
  const aspf = tags?.get('aspf')?.toLowerCase() === 's' ? 's' : 'r';
  const mode = (m: string) => (m === 's' ? 'strict' : 'relaxed');
  const prefix = tags ? '' : 'No DMARC policy is published; once one is, ';
  const dkim = `${prefix}DKIM signs with d=${domain}, which aligns under ${mode(adkim)} DKIM alignment (adkim=${adkim}).`;
  const spf =
    aspf === 's'
      ? `SPF passes for ${returnPath}, which cannot align under strict SPF alignment (aspf=s), so DMARC rests on DKIM alone.`
      : `SPF passes for ${returnPath}, a subdomain of ${domain}, which aligns under relaxed SPF alignment (aspf=r).`;
  return `${dkim} ${spf}`;
}

function judgeDmarc(host: string, txt: string, returnPath: string): Omit<DmarcReport, 'found' | 'alignment'> {
  const tags = parseTags(txt);
  const p = tags.get('p')?.toLowerCase();
  if (p !== 'none' && p !== 'quarantine' && p !== 'reject') {
    const message = `The DMARC record at ${host} has ${p === undefined ? 'no p= tag' : `p=${p}`}: set p=none, p=quarantine or p=reject.`;
    return { state: 'wrong', policy: null, problems: [problem('dmarc_record_malformed', message)] };
  }
  const problems: RecordProblem[] = [];
  if (p === 'none')
    problems.push(
      problem(
        'dmarc_policy_none',
        `Your DMARC policy p=none only monitors: move to p=quarantine or p=reject once reports show only your own mail.`,
      ),
    );
  if (tags.get('aspf')?.toLowerCase() === 's') {
    const message = `Your DMARC record sets aspf=s, so SPF for ${returnPath} cannot align (DKIM still does): remove aspf=s for both to align.`;
    problems.push(problem('dmarc_strict_spf_alignment', message));
  }
  return { state: 'verified', policy: p, problems };
}

async function checkDmarc(resolver: DnsResolver, exp: DomainExpectation): Promise<DmarcReport> {
  const domain = dnsName(exp.domain);
  const host = `_dmarc.${domain}`;
  const returnPath = dnsName(exp.returnPath.host);
  const lookup = await resolver.txt(host);
  const found = lookup.kind === 'found' ? lookup.values : [];
  const dmarc = found.filter(isDmarcRecord);
  const alignment = alignmentOf(domain, returnPath, dmarc.length === 1 ? parseTags(dmarc[0]!) : null);
  if (lookup.kind === 'unknown')
    return { ...couldNotCheck(host, lookup.reason), policy: null, found, alignment };
  if (dmarc.length > 1) {
    const message = `${host} has ${dmarc.length} DMARC records, so receivers ignore them all: keep one.`;
    return {
      state: 'wrong',
      policy: null,
      found,
      alignment,
      problems: [problem('several_dmarc_records', message)],
    };
  }
  if (dmarc.length === 1) return { ...judgeDmarc(host, dmarc[0]!, returnPath), found, alignment };
  const message = `No DMARC record at ${host}: publishing one (v=DMARC1; p=none to start) is recommended, not required.`;
  const draft = await withDoubledSuffix(
    { state: 'missing', problems: [problem('dmarc_missing', message)] },
    host,
    domain,
    txtPresent(resolver, isDmarcRecord),
  );
  return { ...draft, policy: null, found, alignment };
}

/** Checks every record of `exp` at once: DKIM per selector, the return path's MX and SPF, DMARC. */
export async function checkDomainDns(
  resolver: DnsResolver,
  exp: DomainExpectation,
): Promise<{ records: RecordCheck[]; dmarc: DmarcReport }> {
  const domain = dnsName(exp.domain);
  const [dkim, mx, spf, dmarc] = await Promise.all([
    Promise.all(exp.dkim.map((key) => checkDkim(resolver, domain, key))),
    checkReturnPathMx(resolver, exp),
    checkReturnPathSpf(resolver, exp),
    checkDmarc(resolver, exp),
  ]);
  return { records: [...dkim, mx, spf], dmarc };
}
