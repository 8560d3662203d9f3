// Outbound webhooks POST to URLs our customers type in, so every request is a potential SSRF: the
// one home of "webhooks go to public addresses only" is this file (the address and URL rules) and
// egress.ts (the request). The URL is checked when it is saved (checkWebhookUrl) and again when it
// is called (postWebhook), where the name is resolved once and the connection is pinned to the
// address that was checked, so a DNS answer that changes between check and connect (rebinding)
// cannot redirect the request.
import net from 'node:net';
import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';

/** What no URL we call may hold: WHATWG parsing would drop tabs and line breaks silently. */
const UNSAFE = new RegExp(`[\\s${UNSAFE_DISPLAY_CHARACTERS}]`);

const MAX_URL_LENGTH = 2048;
const ALLOW_PRIVATE_HINT =
  'webhooks go to public addresses only (an operator can allow private ones with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true)';

type Cidr<T> = { base: T; bits: number; kind: string };

function parseIPv4(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function parseIPv6(ip: string): bigint {
  let text = ip;
  if (text.includes('.')) {
    // An embedded dotted quad (`::ffff:1.2.3.4`) is the last two groups written in decimal.
    const cut = text.lastIndexOf(':') + 1;
    const quad = parseIPv4(text.slice(cut));
    text = `${text.slice(0, cut)}${Math.floor(quad / 65536).toString(16)}:${(quad % 65536).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const fill = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right].reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

const v4 = (cidr: string, kind: string): Cidr<number> => {
  const [base = '', bits = ''] = cidr.split('/');
  return { base: parseIPv4(base), bits: Number(bits), kind };
};
const v6 = (cidr: string, kind: string): Cidr<bigint> => {
  const [base = '', bits = ''] = cidr.split('/');
  return { base: parseIPv6(base), bits: Number(bits), kind };
};

// First match wins, so a narrower range sits before a wider one that contains it.
const IPV4_RANGES = [
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'CGNAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', '6to4 relay'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('240.0.0.0/4', 'reserved'),
];

// Ranges that carry an IPv4 address in their low 32 bits (6to4 in bits 80..111): the address
// is as public as the IPv4 it embeds, since that is where the packets end up. So
// ::ffff:8.8.8.8 is public and ::ffff:127.0.0.1 is an "IPv4-mapped loopback" address.
const IPV6_EMBEDDING = [
  { range: v6('::ffff:0:0/96', 'IPv4-mapped'), shift: 0n },
  { range: v6('64:ff9b::/96', 'NAT64'), shift: 0n },
  { range: v6('2002::/16', '6to4'), shift: 80n },
];

const IPV6_RANGES = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::/96', 'IPv4-compatible'),
  v6('::ffff:0:0:0/96', 'IPv4-translated'),
  v6('64:ff9b:1::/48', 'NAT64 local-use'),
  v6('100::/64', 'discard'),
  v6('2001::/32', 'Teredo'),
  v6('2001:2::/48', 'benchmarking'),
  v6('2001:10::/28', 'ORCHID'),
  v6('2001:20::/28', 'ORCHIDv2'),
  v6('3fff::/20', 'documentation'),
  v6('2001:db8::/32', 'documentation'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];

const inIPv4 = (ip: number, r: Cidr<number>) =>
  Math.floor(ip / 2 ** (32 - r.bits)) === r.base / 2 ** (32 - r.bits);
const inIPv6 = (ip: bigint, r: Cidr<bigint>) => ip >> BigInt(128 - r.bits) === r.base >> BigInt(128 - r.bits);
const GLOBAL_UNICAST = v6('2000::/3', '');

function ipv4Kind(ip: number): string | null {
  return IPV4_RANGES.find((r) => inIPv4(ip, r))?.kind ?? null;
}

function ipv6Kind(ip: bigint): string | null {
  for (const { range, shift } of IPV6_EMBEDDING) {
    if (!inIPv6(ip, range)) continue;
    const inner = ipv4Kind(Number((ip >> shift) & 0xffffffffn));
    return inner === null ? null : `${range.kind} ${inner}`;
  }
  const kind = IPV6_RANGES.find((r) => inIPv6(ip, r))?.kind;
  if (kind !== undefined) return kind;
  // Everything outside 2000::/3 is unassigned by IANA: nothing legitimate lives there.
  return inIPv6(ip, GLOBAL_UNICAST) ? null : 'unassigned';
}

/**
 * The name of the special-purpose range `ip` belongs to ('loopback', 'private', 'IPv4-mapped
 * loopback', …), or null when it is a public, globally routable address. Anything that is not
 * an IP address, and a scoped IPv6 address (`fe80::1%eth0`), has a kind too.
 */
export function addressKind(ip: string): string | null {
  if (ip.includes('%')) return 'zone-scoped';
  const family = net.isIP(ip);
  if (family === 4) return ipv4Kind(parseIPv4(ip));
  if (family === 6) return ipv6Kind(parseIPv6(ip));
  return 'invalid';
}

export function isPublicAddress(ip: string): boolean {
  return addressKind(ip) === null;
}

const withArticle = (kind: string) => `${/^(?:[aeioAEIO]|un[^i])/.test(kind) ? 'an' : 'a'} ${kind}`;

/**
 * Why a host is refused. A name's resolved address is not named: the answer goes to the API's
 * caller and into the attempt log, and would map the operator's internal names to addresses.
 */
export function refusedHostReason(host: string, kind: string, isResolved = false): string {
  const via = isResolved ? 'resolves to' : 'is';
  return `the URL's host ${host} ${via} ${withArticle(kind)} address: ${ALLOW_PRIVATE_HINT}`;
}

/** The host as an address or name: no IPv6 brackets, no trailing root dot. */
export function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') ? host.slice(1, -1) : host.replace(/\.$/, '');
}

function isInternalName(name: string): boolean {
  // `.internal` covers metadata.google.internal and the other clouds' internal zones.
  return name === 'localhost' || ['.localhost', '.local', '.internal'].some((end) => name.endsWith(end));
}

/**
 * The syntactic check run when a webhook URL is saved (and again before each call). WHATWG URL
 * parsing already turns decimal, octal and hex IPv4 (`http://2130706433/`, `http://0177.0.0.1/`)
 * into dotted form and IPv4-mapped IPv6 into hex, so the address check sees canonical text.
 */
export function checkWebhookUrl(
  raw: string,
  opts: { allowHttp: boolean; allowPrivate: boolean },
): { ok: true; url: URL } | { ok: false; reason: string } {
  const refuse = (reason: string) => ({ ok: false as const, reason });
  if (raw.length > MAX_URL_LENGTH) return refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  if (UNSAFE.test(raw) || !(raw as string & { isWellFormed(): boolean }).isWellFormed())
    return refuse('the URL must not contain spaces, or control, bidirectional or invisible characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('the URL is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && opts.allowHttp)) {
    const scheme = url.protocol.slice(0, -1);
    // Plain http is what a local receiver uses: say which setting allows it (and private hosts).
    return refuse(
      scheme === 'http'
        ? 'the URL must use https, not http (an operator can allow http and private hosts, for local testing, with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true)'
        : `the URL must use https, not ${scheme}`,
    );
  }
  if (url.username !== '' || url.password !== '')
    return refuse('the URL must not contain a user name or password');
  // The authority written plainly: WHATWG parsing would read `https:/host` and a backslash as
  // `https://host/`, so what was typed and what would be called could differ.
  if (!/^https?:\/\/[^/?#@\\]+(?:[/?#]|$)/i.test(raw) || raw.includes('\\'))
    return refuse('the URL must be written scheme://host/path, without a backslash');
  // An empty fragment (`https://x/#`) leaves url.hash empty, hence the href check.
  if (url.hash !== '' || url.href.endsWith('#')) return refuse('the URL must not contain a fragment (#…)');
  if (url.port === '0') return refuse('the URL must not use port 0');
  if (opts.allowPrivate) return { ok: true, url };
  const host = bareHost(url);
  if (net.isIP(host) !== 0) {
    const kind = addressKind(host);
    if (kind !== null) return refuse(refusedHostReason(url.hostname, kind));
  } else if (isInternalName(host)) {
    return refuse(`the URL's host ${url.hostname} is a local or internal name: ${ALLOW_PRIVATE_HINT}`);
  }
  return { ok: true, url };
}
