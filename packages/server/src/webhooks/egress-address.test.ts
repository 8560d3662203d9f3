import { describe, expect, it } from 'vitest';
import { addressKind, checkWebhookUrl, isPublicAddress, parseRetryAfter } from './egress.js';

// [address, kind]: null is public. Each range has its first and last address, and the public
// neighbours on either side where they exist, so an off-by-one in a prefix length shows.
const ADDRESSES: [string, string | null][] = [
  ['8.8.8.8', null],
  ['1.1.1.1', null],
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', null],
  ['9.255.255.255', null],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', null],
  ['100.63.255.255', null],
  ['100.64.0.0', 'CGNAT'],
  ['100.100.100.200', 'CGNAT'],
  ['100.127.255.255', 'CGNAT'],
  ['100.128.0.0', null],
  ['126.255.255.255', null],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', null],
  ['169.253.255.255', null],
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.255.0.0', null],
  ['172.15.255.255', null],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', null],
  ['192.0.0.0', 'IETF protocol'],
  ['192.0.0.255', 'IETF protocol'],
  ['192.0.1.0', null],
  ['192.0.2.1', 'documentation'],
  ['192.0.3.0', null],
  ['192.88.99.1', '6to4 relay'],
  ['192.167.255.255', null],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', null],
  ['198.17.255.255', null],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', null],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['223.255.255.255', null],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['2606:4700::1111', null],
  ['2001:4860:4860::8888', null],
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  // IPv4-mapped: as public as the IPv4 inside it, dotted or hex.
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback'],
  ['::FFFF:A9FE:A9FE', 'IPv4-mapped link-local'],
  ['::ffff:10.1.2.3', 'IPv4-mapped private'],
  ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
  ['::ffff:8.8.8.8', null],
  ['::ffff:808:808', null],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::8.8.8.8', 'IPv4-compatible'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated'],
  ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
  ['64:ff9b::a00:1', 'NAT64 private'],
  ['64:ff9b::8.8.8.8', null],
  ['64:ff9b:1::8.8.8.8', 'NAT64 local-use'],
  ['2002:7f00:1::', '6to4 loopback'],
  ['2002:a9fe:a9fe::1', '6to4 link-local'],
  ['2002:808:808::1', null],
  ['2001::1', 'Teredo'],
  ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'Teredo'],
  ['2001:1::', null],
  ['100::', 'discard'],
  ['100::ffff:ffff:ffff:ffff', 'discard'],
  ['100:0:0:1::', 'unassigned'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2001:db9::', null],
  ['2001:10::1', 'ORCHID'],
  ['2001:1f:ffff::', 'ORCHID'],
  ['2001:2f::', 'ORCHIDv2'],
  ['2001:30::', null],
  ['3fff::1', 'documentation'],
  ['fc00::', 'unique-local'],
  ['fd00:ec2::254', 'unique-local'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['febf:ffff::', 'link-local'],
  ['fec0::1', 'site-local'],
  ['feff::', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
  ['1fff:ffff::', 'unassigned'],
  ['4000::', 'unassigned'],
  ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['fe80::1%eth0', 'zone-scoped'],
  ['localhost', 'invalid'],
  ['0177.0.0.1', 'invalid'],
  ['2130706433', 'invalid'],
  ['', 'invalid'],
];

describe('addressKind and isPublicAddress', () => {
  it.each(ADDRESSES)('classifies %s as %s', (ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
    expect(isPublicAddress(ip)).toBe(kind === null);
  });
});

const strict = { allowHttp: false, allowPrivate: false };
const reasonFor = (raw: string, opts = strict) => {
  const result = checkWebhookUrl(raw, opts);
  return result.ok ? 'ok' : result.reason;
};

describe('checkWebhookUrl', () => {
  // WHATWG URL parsing turns every IPv4 spelling into dotted form before the address check.
  it.each([
    ['https://2130706433/', 'https://127.0.0.1/'],
    ['https://0177.0.0.1/', 'https://127.0.0.1/'],
    ['https://0x7f000001/', 'https://127.0.0.1/'],
    ['https://0x7f.1/', 'https://127.0.0.1/'],
    ['https://127.1/', 'https://127.0.0.1/'],
    ['https://127.0.0.1./', 'https://127.0.0.1/'],
    ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/'],
    ['https://[::0.0.0.1]/', 'https://[::1]/'],
  ])('relies on the URL parser normalising %s to %s', (raw, normal) => {
    expect(new URL(raw).href).toBe(normal);
  });

  it.each([
    ['https://127.0.0.1/', 'is a loopback address'],
    ['http://[::ffff:127.0.0.1]/', 'is an IPv4-mapped loopback address'],
    ['https://[::ffff:7f00:1]/', 'is an IPv4-mapped loopback address'],
    ['https://2130706433/', 'is a loopback address'],
    ['https://0177.0.0.1/', 'is a loopback address'],
    ['https://0x7f000001/', 'is a loopback address'],
    ['https://127.1/', 'is a loopback address'],
    ['https://[::1]/', 'is a loopback address'],
    ['https://169.254.169.254/latest/meta-data', 'is a link-local address'],
    ['https://[fd00:ec2::254]/', 'is a unique-local address'],
    ['https://100.100.100.200/', 'is a CGNAT address'],
    ['https://10.0.0.1:8443/hook', 'is a private address'],
    ['https://0.0.0.0/', 'is an unspecified address'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'is a NAT64 link-local address'],
    ['https://localhost/', 'is a local or internal name'],
    ['https://LOCALHOST./', 'is a local or internal name'],
    ['https://foo.localhost/', 'is a local or internal name'],
    ['https://printer.local/', 'is a local or internal name'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'is a local or internal name'],
    ['https://db.internal/', 'is a local or internal name'],
  ])('refuses the non-public host of %s', (raw, phrase) => {
    const reason = reasonFor(raw, { allowHttp: true, allowPrivate: false });
    expect(reason).toContain(phrase);
    expect(reason).toContain('MAILSVC_WEBHOOK_ALLOW_PRIVATE=true');
  });

  it('names the host and its range in the reason', () => {
    expect(reasonFor('https://127.0.0.1/hook')).toBe(
      "the URL's host 127.0.0.1 is a loopback address: webhooks go to public addresses only (an operator can allow private ones with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true)",
    );
  });

  it.each([
    ['https://[fe80::1%25eth0]/', 'the URL is not a valid absolute URL'],
    ['/relative/hook', 'the URL is not a valid absolute URL'],
    ['ftp://x', 'the URL must use https, not ftp'],
    ['javascript:alert(1)', 'the URL must use https, not javascript'],
    [
      'http://example.com/',
      'the URL must use https, not http (an operator can allow http and private hosts, for local testing, with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true)',
    ],
    ['https://u:p@example.com/', 'the URL must not contain a user name or password'],
    ['https://u@example.com/', 'the URL must not contain a user name or password'],
    ['https://example.com/#frag', 'the URL must not contain a fragment (#…)'],
    ['https://example.com/#', 'the URL must not contain a fragment (#…)'],
    ['https://example.com:0/', 'the URL must not use port 0'],
    [`https://example.com/${'a'.repeat(2030)}`, 'the URL is longer than 2048 characters'],
  ])('refuses the malformed or unsafe URL %s', (raw, reason) => {
    expect(reasonFor(raw)).toBe(reason);
  });

  it.each([
    'https://example.com/hooks/mailsvc',
    'https://example.com:8443/hook?tenant=1',
    'https://8.8.8.8/',
    'https://[2606:4700::1111]/',
    'https://[::ffff:8.8.8.8]/',
    'https://local.example.com/',
    `https://example.com/${'a'.repeat(2028)}`,
  ])('accepts the public URL %s', (raw) => {
    expect(reasonFor(raw)).toBe('ok');
  });

  it('accepts http only when the caller allows it', () => {
    expect(reasonFor('http://example.com/')).toBe(
      'the URL must use https, not http (an operator can allow http and private hosts, for local testing, with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true)',
    );
    expect(reasonFor('http://example.com/', { allowHttp: true, allowPrivate: false })).toBe('ok');
  });

  it('accepts private hosts when the operator allows them', () => {
    const opts = { allowHttp: true, allowPrivate: true };
    expect(reasonFor('http://127.0.0.1:1234/hook', opts)).toBe('ok');
    expect(reasonFor('https://localhost/', opts)).toBe('ok');
    expect(reasonFor('https://[fd00:ec2::254]/', opts)).toBe('ok');
    expect(reasonFor('https://u:p@127.0.0.1/', opts)).toBe(
      'the URL must not contain a user name or password',
    );
  });

  it('returns the parsed URL when it accepts', () => {
    const result = checkWebhookUrl('https://Example.COM/a?b=1', strict);
    expect(result.ok && result.url.href).toBe('https://example.com/a?b=1');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it.each([
    ['0', 0],
    ['120', 120],
    [' 30 ', 30],
    ['Thu, 01 Jan 2026 12:01:30 GMT', 90],
    ['Thursday, 01-Jan-26 12:00:10 GMT', 10],
    ['Thu Jan  1 12:00:05 2026', 5],
    ['Thu, 01 Jan 2026 11:00:00 GMT', 0],
  ])('reads %j as %i seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });

  it('rounds a date that is part of a second away up', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:10 GMT', now + 500)).toBe(10);
  });

  it.each([
    undefined,
    '',
    '-1',
    '1.5',
    '1e3',
    'soon',
    '99999999999999999999',
    '2026-01-01T12:01:00Z',
    'Thu 1',
  ])('ignores the invalid value %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
