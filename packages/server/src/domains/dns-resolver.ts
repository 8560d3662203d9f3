// The DNS lookups of the domain checker (dns-check.ts), over node:dns's Resolver: each answers
// found, absent (NXDOMAIN, or the name exists without records of the type) or unknown (SERVFAIL,
// a timeout, a refused or unreachable server: "could not check", never "missing"), instead of
// throwing. TXT records come back whole, their character-strings joined without spaces (RFC 7208
// §3.3, RFC 6376 §3.6.2.2), and a CNAME the server answered alone is followed here.
import { promises as dns } from 'node:dns';

export type Lookup<T> =
  | { kind: 'found'; values: T[] }
  | { kind: 'absent'; nxdomain: boolean }
  | { kind: 'unknown'; reason: string };

/** A TXT lookup, with the CNAME targets followed to reach the records (empty when none). */
export type TxtLookup = Lookup<string> & { chain: string[] };

export interface MxValue {
  exchange: string;
  priority: number;
}

export interface DnsResolver {
  /** Each TXT record as one string; CNAMEs followed (at most 8 hops, a loop is unknown). */
  txt(name: string): Promise<TxtLookup>;
  /** Exchanges lowercase, without a trailing dot. */
  mx(name: string): Promise<Lookup<MxValue>>;
  /** The CNAME's target at this exact name (lowercase, no trailing dot). */
  cname(name: string): Promise<Lookup<string>>;
  ns(name: string): Promise<Lookup<string>>;
}

export interface DnsResolverOptions {
  /** `1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`; none: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** How long one try waits for an answer. Default 3000. */
  timeoutMs?: number;
  /** Tries per server before the lookup is unknown. Default 2. */
  tries?: number;
}

/** The longest CNAME chain followed: resolvers give up around here too. */
export const MAX_CNAME_HOPS = 8;

/** "Example.COM." → "example.com". */
export const dnsName = (name: string): string => name.trim().replace(/\.$/, '').toLowerCase();

const ABSENT = new Set(['ENODATA', 'ENOTFOUND']);

/** Why a lookup could not be answered, in words for a tenant. */
function reasonOf(code: string | undefined, timeoutMs: number): string {
  switch (code) {
    case 'ESERVFAIL':
      return 'the DNS server answered SERVFAIL (it could not get an answer from your DNS provider)';
    case 'ETIMEOUT':
      return `no answer from DNS within ${timeoutMs} ms`;
    case 'ECONNREFUSED':
      return 'the DNS server refused the connection';
    case 'EREFUSED':
      return 'the DNS server refused the query';
    default:
      return `the DNS lookup failed (${code ?? 'unknown error'})`;
  }
}

export function createDnsResolver(opts: DnsResolverOptions = {}): DnsResolver {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: opts.tries ?? 2 });
  if (opts.servers?.length) resolver.setServers([...opts.servers]);

  /** An empty answer (NOERROR with only a CNAME, as c-ares reports it) counts as absent. */
  async function lookup<R, T>(query: () => Promise<R[]>, map: (r: R) => T): Promise<Lookup<T>> {
    try {
      const values = (await query()).map(map);
      return values.length ? { kind: 'found', values } : { kind: 'absent', nxdomain: false };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code && ABSENT.has(code)) return { kind: 'absent', nxdomain: code === 'ENOTFOUND' };
      return { kind: 'unknown', reason: reasonOf(code, timeoutMs) };
    }
  }

  const cname = (name: string) => lookup(() => resolver.resolveCname(name), dnsName);

  async function txt(name: string): Promise<TxtLookup> {
    const chain: string[] = [];
    let current = dnsName(name);
    for (;;) {
      const found = await lookup(
        () => resolver.resolveTxt(current),
        (strings) => strings.join(''),
      );
      // NXDOMAIN, records or a failure end it; a name without TXT may still be an alias.
      if (found.kind !== 'absent' || found.nxdomain) return { ...found, chain };
      const alias = await cname(current);
      if (alias.kind === 'unknown') return { ...alias, chain };
      if (alias.kind === 'absent') return { ...found, chain };
      const target = alias.values[0]!;
      if (target === dnsName(name) || chain.includes(target))
        return { kind: 'unknown', reason: `the CNAME chain from ${dnsName(name)} loops at ${target}`, chain };
      if (chain.length >= MAX_CNAME_HOPS)
        return { kind: 'unknown', reason: `more than ${MAX_CNAME_HOPS} CNAMEs from ${dnsName(name)}`, chain };
      chain.push(target);
      current = target;
    }
  }

  return {
    txt,
    mx: (name) =>
      lookup(
        () => resolver.resolveMx(dnsName(name)),
        (r) => ({ exchange: dnsName(r.exchange), priority: r.priority }),
      ),
    cname: (name) => cname(dnsName(name)),
    ns: (name) => lookup(() => resolver.resolveNs(dnsName(name)), dnsName),
  };
}
