// The DNS checker (src/domains/dns-check.ts) against a real DNS server (the testkit's, on
// 127.0.0.1 over UDP and TCP), resolved with node:dns as in production: one fixture zone per rule.
// Each test publishes under its own domain, so the tests share one server without meeting.
import { generateKeyPairSync } from 'node:crypto';
import { type DnsTestServer, startDnsServer } from '@mailsvc/testkit/dns-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDomainDns, type DomainExpectation, type RecordCheck } from '../src/domains/dns-check.js';
import { createDnsResolver, type DnsResolver } from '../src/domains/dns-resolver.js';

const MX_HOST = 'mx.mailsvc.example';
const SPF_MECHANISM = 'include:_spf.mailsvc.example';

const spkiBase64 = (bits: number) =>
  generateKeyPairSync('rsa', { modulusLength: bits })
    .publicKey.export({ format: 'der', type: 'spki' })
    .toString('base64');
const KEY = spkiBase64(2048);
const OTHER_KEY = spkiBase64(2048);
const SHORT_KEY = spkiBase64(1024);
const dkimRecord = (key: string) => `v=DKIM1; k=rsa; p=${key}`;

let dns: DnsTestServer;
let delegated: DnsTestServer;
let resolver: DnsResolver;

beforeAll(async () => {
  [dns, delegated] = await Promise.all([startDnsServer(), startDnsServer()]);
  resolver = createDnsResolver({ servers: [dns.server], timeoutMs: 300, tries: 1 });
  dns.set('_spf.mailsvc.example', 'TXT', ['v=spf1 ip4:203.0.113.0/24 -all']);
});
afterAll(async () => {
  await Promise.all([dns?.close(), delegated?.close()]);
});

const expectation = (domain: string, key = KEY): DomainExpectation => ({
  domain,
  dkim: [{ selector: 's1', publicKeyBase64: key }],
  returnPath: { host: `bounces.${domain}`, mxHost: MX_HOST, spfMechanism: SPF_MECHANISM },
});

/** Every record right, bar those named in `skip`. */
function publish(domain: string, skip: ('dkim' | 'mx' | 'spf' | 'dmarc')[] = []) {
  if (!skip.includes('dkim')) dns.set(`s1._domainkey.${domain}`, 'TXT', dkimRecord(KEY));
  if (!skip.includes('mx')) dns.set(`bounces.${domain}`, 'MX', { exchange: MX_HOST, priority: 10 });
  if (!skip.includes('spf')) dns.set(`bounces.${domain}`, 'TXT', [`v=spf1 ${SPF_MECHANISM} -all`]);
  if (!skip.includes('dmarc'))
    dns.set(`_dmarc.${domain}`, 'TXT', ['v=DMARC1; p=reject; rua=mailto:d@example.net']);
}

async function check(domain: string, key = KEY) {
  const result = await checkDomainDns(resolver, expectation(domain, key));
  const by = (purpose: RecordCheck['purpose']) => result.records.find((r) => r.purpose === purpose)!;
  return { ...result, dkim: by('dkim'), mx: by('return_path_mx'), spf: by('return_path_spf') };
}

const codes = (r: { problems: { code: string }[] }) => r.problems.map((p) => p.code);

describe('the DNS checker', () => {
  it('verifies every record when all are right, and reports what DNS answered', async () => {
    publish('good.test');
    const r = await check('good.test');
    expect(r.records.map((x) => [x.purpose, x.host, x.type, x.state, codes(x)])).toEqual([
      ['dkim', 's1._domainkey.good.test', 'TXT', 'verified', []],
      ['return_path_mx', 'bounces.good.test', 'MX', 'verified', []],
      ['return_path_spf', 'bounces.good.test', 'TXT', 'verified', []],
    ]);
    expect(r.dkim.selector).toBe('s1');
    expect(r.dkim.found).toEqual([dkimRecord(KEY)]);
    expect(r.mx.found).toEqual([`10 ${MX_HOST}`]);
    expect(r.spf.found).toEqual([`v=spf1 ${SPF_MECHANISM} -all`]);
    expect(r.dmarc).toMatchObject({ state: 'verified', policy: 'reject', problems: [] });
  });

  it('a missing DKIM record is missing (only that record)', async () => {
    publish('nodkim.test', ['dkim']);
    const r = await check('nodkim.test');
    expect([r.dkim.state, r.dkim.found, r.dkim.problems]).toEqual(['missing', [], []]);
    expect([r.mx.state, r.spf.state]).toEqual(['verified', 'verified']);
  });

  it('a missing return-path MX is missing', async () => {
    publish('nomx.test', ['mx']);
    const r = await check('nomx.test');
    expect([r.mx.state, r.mx.problems]).toEqual(['missing', []]);
    expect([r.dkim.state, r.spf.state]).toEqual(['verified', 'verified']);
  });

  it('a missing return-path SPF is missing, even beside other TXT records', async () => {
    publish('nospf.test', ['spf']);
    dns.set('bounces.nospf.test', 'TXT', ['google-site-verification=abc']);
    const r = await check('nospf.test');
    expect([r.spf.state, r.spf.found, r.spf.problems]).toEqual([
      'missing',
      ['google-site-verification=abc'],
      [],
    ]);
  });

  it('another DKIM key is wrong: dkim_key_mismatch', async () => {
    publish('otherkey.test');
    dns.set('s1._domainkey.otherkey.test', 'TXT', dkimRecord(OTHER_KEY));
    const r = await check('otherkey.test');
    expect([r.dkim.state, codes(r.dkim)]).toEqual(['wrong', ['dkim_key_mismatch']]);
  });

  it('an MX pointing elsewhere is wrong: mx_points_elsewhere', async () => {
    publish('mxelse.test');
    dns.set('bounces.mxelse.test', 'MX', [{ exchange: 'mx.other.example', priority: 5 }]);
    const r = await check('mxelse.test');
    expect([r.mx.state, codes(r.mx), r.mx.found]).toEqual([
      'wrong',
      ['mx_points_elsewhere'],
      ['5 mx.other.example'],
    ]);
    expect(r.mx.problems[0]!.message).toContain(MX_HOST);
  });

  it('an SPF record without the mechanism is wrong: spf_mechanism_missing', async () => {
    publish('spfnomech.test');
    dns.set('bounces.spfnomech.test', 'TXT', ['v=spf1 ip4:198.51.100.1 -all']);
    const r = await check('spfnomech.test');
    expect([r.spf.state, codes(r.spf)]).toEqual(['wrong', ['spf_mechanism_missing']]);
    expect(r.spf.problems[0]!.message).toContain(SPF_MECHANISM);
  });

  it('a 2048-bit key split over several 255-character strings is joined and verified', async () => {
    publish('split.test');
    const whole = dkimRecord(KEY);
    const strings = whole.match(/.{1,255}/g)!;
    expect(strings.length).toBeGreaterThan(1);
    dns.set('s1._domainkey.split.test', 'TXT', [strings]);
    const r = await check('split.test');
    expect([r.dkim.state, r.dkim.found, r.dkim.problems]).toEqual(['verified', [whole], []]);
  });

  it('a 1024-bit key is wrong even when it is the expected one: dkim_key_too_short', async () => {
    publish('short.test');
    dns.set('s1._domainkey.short.test', 'TXT', dkimRecord(SHORT_KEY));
    const r = await check('short.test', SHORT_KEY);
    expect([r.dkim.state, codes(r.dkim)]).toEqual(['wrong', ['dkim_key_too_short']]);
    expect(r.dkim.problems[0]!.message).toContain('1024 bits');
  });

  it('a revoked DKIM key (empty p=) is wrong: dkim_record_malformed', async () => {
    publish('revoked.test');
    dns.set('s1._domainkey.revoked.test', 'TXT', 'v=DKIM1; k=rsa; p=');
    const r = await check('revoked.test');
    expect([r.dkim.state, codes(r.dkim)]).toEqual(['wrong', ['dkim_record_malformed']]);
    expect(r.dkim.problems[0]!.message).toContain('revoked');
  });

  it('several TXT records at the DKIM name: verified with a warning when exactly one is ours, else wrong', async () => {
    publish('twodkim.test');
    dns.set('s1._domainkey.twodkim.test', 'TXT', [dkimRecord(KEY), dkimRecord(OTHER_KEY)]);
    const one = await check('twodkim.test');
    expect([one.dkim.state, codes(one.dkim)]).toEqual(['verified', ['several_dkim_records']]);
    dns.set('s1._domainkey.twodkim.test', 'TXT', [dkimRecord(OTHER_KEY), 'v=DKIM1; p=']);
    const none = await check('twodkim.test');
    expect([none.dkim.state, codes(none.dkim)]).toEqual([
      'wrong',
      ['several_dkim_records', 'dkim_key_mismatch', 'dkim_record_malformed'],
    ]);
  });

  it('_domainkey delegated to a second server is checked through the delegation', async () => {
    publish('example.test', ['dkim']);
    dns.delegate('_domainkey.example.test', delegated);
    delegated.set('s1._domainkey.example.test', 'TXT', dkimRecord(KEY));
    const before = delegated.queries.udp + delegated.queries.tcp;
    const r = await check('example.test');
    expect([r.dkim.state, r.dkim.problems]).toEqual(['verified', []]);
    expect(delegated.queries.udp + delegated.queries.tcp).toBeGreaterThan(before);
  });

  it('a CNAME chain of two hops on the same server is followed', async () => {
    publish('chain.test', ['dkim']);
    dns.set('s1._domainkey.chain.test', 'CNAME', 's1.hop.chain.test');
    dns.set('s1.hop.chain.test', 'CNAME', 's1.keys.provider-a.test');
    dns.set('s1.keys.provider-a.test', 'TXT', dkimRecord(KEY));
    const r = await check('chain.test');
    expect([r.dkim.state, r.dkim.found, r.dkim.problems]).toEqual(['verified', [dkimRecord(KEY)], []]);
  });

  it('a CNAME to a name only the delegated server holds is followed by the checker', async () => {
    publish('alias.test', ['dkim']);
    dns.delegate('provider-b.test', delegated);
    dns.set('s1._domainkey.alias.test', 'CNAME', 's1.hop.alias.test');
    dns.set('s1.hop.alias.test', 'CNAME', 's1.keys.provider-b.test');
    delegated.set('s1.keys.provider-b.test', 'TXT', dkimRecord(KEY));
    const txt = await resolver.txt('s1._domainkey.alias.test');
    // The server answers each alias alone (its target is delegated): the checker asks hop by hop.
    expect(txt).toEqual({
      kind: 'found',
      values: [dkimRecord(KEY)],
      chain: ['s1.hop.alias.test', 's1.keys.provider-b.test'],
    });
    const r = await check('alias.test');
    expect([r.dkim.state, r.dkim.problems]).toEqual(['verified', []]);
  });

  it('SERVFAIL is could-not-check, never missing', async () => {
    publish('servfail.test', ['mx', 'spf']);
    dns.fault('bounces.servfail.test', 'servfail');
    const r = await check('servfail.test');
    for (const rec of [r.mx, r.spf]) {
      expect([rec.state, codes(rec)]).toEqual(['unknown', ['could_not_check']]);
      expect(rec.problems[0]!.message).toContain('SERVFAIL');
    }
    expect(r.dkim.state).toBe('verified');
  });

  it('a timeout is could-not-check, never missing', async () => {
    publish('timeout.test', ['dkim']);
    dns.fault('s1._domainkey.timeout.test', 'timeout');
    const r = await check('timeout.test');
    expect([r.dkim.state, codes(r.dkim)]).toEqual(['unknown', ['could_not_check']]);
    expect(r.dkim.problems[0]!.message).toContain('300 ms');
    expect([r.mx.state, r.spf.state]).toEqual(['verified', 'verified']);
  });

  it('an unreachable DNS server is could-not-check, never missing', async () => {
    const gone = await startDnsServer();
    await gone.close();
    const nowhere = createDnsResolver({ servers: [gone.server], timeoutMs: 300, tries: 1 });
    const r = await checkDomainDns(nowhere, expectation('good.test'));
    expect(r.records.map((x) => x.state)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(r.dmarc.state).toBe('unknown');
  });

  it('a truncated UDP answer is asked again over TCP and verified', async () => {
    publish('truncated.test');
    dns.fault('s1._domainkey.truncated.test', 'truncate');
    const tcpBefore = dns.queries.tcp;
    const r = await check('truncated.test');
    expect(dns.queries.tcp).toBeGreaterThan(tcpBefore);
    expect([r.dkim.state, r.dkim.found, r.dkim.problems]).toEqual(['verified', [dkimRecord(KEY)], []]);
  });

  it('a record under the zone twice stays missing, with doubled_zone_suffix', async () => {
    dns.set('s1._domainkey.dbl.test.dbl.test', 'TXT', dkimRecord(KEY));
    dns.set('bounces.dbl.test.dbl.test', 'MX', { exchange: MX_HOST, priority: 10 });
    dns.set('bounces.dbl.test.dbl.test', 'TXT', [`v=spf1 ${SPF_MECHANISM} -all`]);
    dns.set('_dmarc.dbl.test', 'TXT', ['v=DMARC1; p=none']);
    const r = await check('dbl.test');
    for (const rec of r.records)
      expect([rec.state, codes(rec)]).toEqual(['missing', ['doubled_zone_suffix']]);
    expect(r.mx.problems[0]!.message).toContain('enter only the part before .dbl.test (bounces)');
  });

  it('two SPF records are wrong: several_spf_records', async () => {
    publish('twospf.test');
    dns.set('bounces.twospf.test', 'TXT', [`v=spf1 ${SPF_MECHANISM} -all`, 'v=spf1 ip4:198.51.100.1 -all']);
    const r = await check('twospf.test');
    expect([r.spf.state, codes(r.spf)]).toEqual(['wrong', ['several_spf_records']]);
  });

  it('SPF with more than 10 lookups through chained includes is wrong: spf_too_many_lookups', async () => {
    publish('manyspf.test');
    dns.set('bounces.manyspf.test', 'TXT', [`v=spf1 ${SPF_MECHANISM} include:a.spf.manyspf.test -all`]);
    dns.set('a.spf.manyspf.test', 'TXT', ['v=spf1 a mx include:b.spf.manyspf.test ~all']);
    dns.set('b.spf.manyspf.test', 'TXT', ['v=spf1 a mx include:c.spf.manyspf.test ~all']);
    dns.set('c.spf.manyspf.test', 'TXT', ['v=spf1 a mx exists:%{i}.x.test ptr ~all']);
    const r = await check('manyspf.test');
    expect([r.spf.state, codes(r.spf)]).toEqual(['wrong', ['spf_too_many_lookups']]);
    expect(r.spf.problems[0]!.message).toContain('needs 12 DNS lookups');
  });

  it('an SPF include loop is wrong: spf_too_many_lookups', async () => {
    publish('loopspf.test');
    dns.set('bounces.loopspf.test', 'TXT', [`v=spf1 ${SPF_MECHANISM} include:a.loopspf.test -all`]);
    dns.set('a.loopspf.test', 'TXT', ['v=spf1 include:b.loopspf.test -all']);
    dns.set('b.loopspf.test', 'TXT', ['v=spf1 include:a.loopspf.test -all']);
    const r = await check('loopspf.test');
    expect([r.spf.state, codes(r.spf)]).toEqual(['wrong', ['spf_too_many_lookups']]);
    expect(r.spf.problems[0]!.message).toContain('a.loopspf.test → b.loopspf.test → a.loopspf.test');
  });

  it('SPF ending in +all or ?all is verified with the warning spf_allows_all', async () => {
    publish('allspf.test');
    dns.set('bounces.allspf.test', 'TXT', [`v=spf1 ${SPF_MECHANISM} ?all`]);
    const r = await check('allspf.test');
    expect([r.spf.state, codes(r.spf)]).toEqual(['verified', ['spf_allows_all']]);
  });

  it('a CNAME beside a TXT record is wrong: cname_beside_other_records', async () => {
    publish('beside.test');
    dns.set('s1._domainkey.beside.test', 'CNAME', 's1.keys.provider-c.test');
    dns.set('s1.keys.provider-c.test', 'TXT', dkimRecord(OTHER_KEY));
    const r = await check('beside.test');
    expect(r.dkim.found).toEqual([dkimRecord(KEY)]);
    expect([r.dkim.state, codes(r.dkim)]).toEqual(['wrong', ['cname_beside_other_records']]);
  });
});

describe('DMARC (reported, never required)', () => {
  it('p=reject is verified, with DKIM and SPF aligned under relaxed alignment', async () => {
    publish('dmarcreject.test');
    const { dmarc } = await check('dmarcreject.test');
    expect(dmarc).toMatchObject({ state: 'verified', policy: 'reject', problems: [] });
    expect(dmarc.found).toEqual(['v=DMARC1; p=reject; rua=mailto:d@example.net']);
    expect(dmarc.alignment).toContain('d=dmarcreject.test');
    expect(dmarc.alignment).toContain('relaxed SPF alignment (aspf=r)');
  });

  it('p=none is verified with the note dmarc_policy_none', async () => {
    publish('dmarcnone.test');
    dns.set('_dmarc.dmarcnone.test', 'TXT', ['v=DMARC1; p=none']);
    const { dmarc } = await check('dmarcnone.test');
    expect([dmarc.state, dmarc.policy, codes(dmarc)]).toEqual(['verified', 'none', ['dmarc_policy_none']]);
  });

  it('aspf=s: SPF cannot align, DKIM still does: dmarc_strict_spf_alignment', async () => {
    publish('dmarcstrict.test');
    dns.set('_dmarc.dmarcstrict.test', 'TXT', ['v=DMARC1; p=quarantine; aspf=s']);
    const { dmarc } = await check('dmarcstrict.test');
    expect([dmarc.state, dmarc.policy, codes(dmarc)]).toEqual([
      'verified',
      'quarantine',
      ['dmarc_strict_spf_alignment'],
    ]);
    expect(dmarc.alignment).toContain('cannot align under strict SPF alignment');
    expect(dmarc.alignment).toContain('DKIM alone');
  });

  it('no DMARC record is missing (dmarc_missing) and leaves the other records verified', async () => {
    publish('dmarcmissing.test', ['dmarc']);
    const r = await check('dmarcmissing.test');
    expect([r.dmarc.state, r.dmarc.policy, codes(r.dmarc)]).toEqual(['missing', null, ['dmarc_missing']]);
    expect(r.records.map((x) => x.state)).toEqual(['verified', 'verified', 'verified']);
  });

  it('two DMARC records are wrong: several_dmarc_records', async () => {
    publish('dmarctwo.test');
    dns.set('_dmarc.dmarctwo.test', 'TXT', ['v=DMARC1; p=none', 'v=DMARC1; p=reject']);
    const { dmarc } = await check('dmarctwo.test');
    expect([dmarc.state, dmarc.policy, codes(dmarc)]).toEqual(['wrong', null, ['several_dmarc_records']]);
  });
});

describe('the resolver', () => {
  it('tells NXDOMAIN from a name without records of the type, and joins a record’s strings', async () => {
    dns.set('joined.resolver.test', 'TXT', [['v=spf1 ', 'ip4:192.0.2.1', ' -all']]);
    expect(await resolver.txt('Joined.Resolver.Test.')).toEqual({
      kind: 'found',
      values: ['v=spf1 ip4:192.0.2.1 -all'],
      chain: [],
    });
    expect(await resolver.mx('joined.resolver.test')).toEqual({ kind: 'absent', nxdomain: false });
    expect(await resolver.txt('nothing.resolver.test')).toEqual({
      kind: 'absent',
      nxdomain: true,
      chain: [],
    });
  });

  it('a CNAME loop is could-not-check', async () => {
    dns.set('a.loop.resolver.test', 'CNAME', 'b.loop.resolver.test');
    dns.set('b.loop.resolver.test', 'CNAME', 'a.loop.resolver.test');
    const r = await resolver.txt('a.loop.resolver.test');
    expect(r.kind).toBe('unknown');
  });
});
