// Sending domains that verify themselves (DESIGN.md §13), end to end on both backends: the API
// answers the records, a real DNS server on 127.0.0.1 (testkit/dns-server.ts) serves what the
// test publishes, the worker's checker (asked through node:dns, never a stub) steps the lifecycle
// on the harness's movable clock, and mail from a verified domain is delivered to a real SMTP sink
// and verified by mailauth (DKIM, SPF, DMARC) against that same DNS server.
import { promises as dnsPromises } from 'node:dns';
import { createRequire } from 'node:module';
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { type DnsTestServer, startDnsServer } from '@mailsvc/testkit/dns-server';
import { createHarness, type Harness, postJson, type Scope } from '@mailsvc/testkit/harness';
import { seedRoomyScope } from '@mailsvc/testkit/hostile-corpus';
import { startSinkWorker } from '@mailsvc/testkit/smtp-sink';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainCheckWorker } from '../src/domains/domain-check-worker.js';

interface AuthVerdict {
  status: { result: string };
}
/** mailauth ships no types: what this file reads of authenticate()'s answer. */
const { authenticate } = createRequire(import.meta.url)('mailauth') as {
  authenticate(
    raw: Buffer,
    opts: Record<string, unknown>,
  ): Promise<{
    dkim: { results: (AuthVerdict & { signingDomain: string; selector: string })[] };
    spf: AuthVerdict;
    dmarc: AuthVerdict;
  }>;
};

let h: Harness;
let s: Scope;
let dns: DnsTestServer;
let rig: Awaited<ReturnType<typeof startSinkWorker>>;
let checker: DomainCheckWorker;
const START = '2026-11-22T10:15:30.123Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MX_HOST = 'inbound.mailsvc-ops.test';

beforeAll(async () => {
  dns = await startDnsServer();
  h = await createHarness({
    env: {
      MAILSVC_DNS_SERVERS: dns.server,
      MAILSVC_DNS_TIMEOUT_MS: '300',
      MAILSVC_INBOUND_MX_HOST: MX_HOST,
      MAILSVC_RETURN_PATH_SPF: 'ip4:127.0.0.1',
    },
  });
  s = await seedRoomyScope(h, 'domains');
  rig = await startSinkWorker(h.runtime.deps);
  checker = new DomainCheckWorker(h.runtime.deps, { concurrency: 4, leaseMs: 300_000, pollMs: 3_600_000 });
});
afterAll(async () => {
  await checker.stop();
  await rig.close();
  await h.close();
  await dns.close();
});

const call = (path: string, body: unknown, apiKey = s.apiKey) => postJson(h, apiKey, path, body);
async function ok(path: string, body: unknown, apiKey = s.apiKey) {
  const res = await call(path, body, apiKey);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

let counter = 0;
const freshDomain = () => `acme${++counter}-${process.pid}.example.com`;

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read loosely
type Json = Record<string, any>;

/** Publishes every record the API answered (the optional DMARC one too, unless told not to). */
function publish(domain: Json, opts: { dmarc?: string | null } = {}) {
  for (const r of domain.records as Json[]) {
    if (r.purpose === 'dmarc') {
      if (opts.dmarc !== null) dns.set(r.host, 'TXT', [opts.dmarc ?? 'v=DMARC1; p=reject']);
    } else if (r.type === 'MX') dns.set(r.host, 'MX', { exchange: r.value, priority: r.priority });
    else dns.set(r.host, 'TXT', [r.txtStrings ?? [r.value]]);
  }
}

const recordOf = (domain: Json, purpose: string) =>
  (domain.records as Json[]).find((r) => r.purpose === purpose)!;

async function checkAt(ms: number) {
  h.clock.set(new Date(Date.parse(START) + ms).toISOString());
  await checker.drain();
}

async function get(domainId: string, apiKey = s.apiKey): Promise<Json> {
  return (await ok('/v1/domains/get', { domainId }, apiKey)).domain;
}

async function sendFrom(from: string, apiKey = s.apiKey) {
  return call(
    '/v1/send',
    { templateId: 'login-code', to: 'ada@example.org', from, data: { code: '482913' } },
    apiKey,
  );
}

/** mailauth's verdicts for a delivered message, every lookup answered by the test's DNS server. */
async function authResults(raw: Buffer, mailFrom: string) {
  const resolver = new dnsPromises.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dns.server]);
  return authenticate(raw, {
    ip: '127.0.0.1',
    helo: 'mailsvc.test',
    sender: mailFrom,
    mta: 'receiver.test',
    resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT'),
  });
}

/** The last message the sink got from `name` (earlier tests' mail may be delivered meanwhile). */
const lastFrom = (name: string) =>
  rig.sink.received.filter((m) => m.parsed.from?.value[0]?.address?.endsWith(`@${name}`)).at(-1)!;

async function cleanSlate() {
  for (const d of (await ok('/v1/domains/list', {})).domains)
    await ok('/v1/domains/delete', { domainId: d.domainId });
}

describe('domains', () => {
  beforeEach(async () => {
    h.clock.set(START);
    await cleanSlate();
  });

  it('add answers the records to publish and a first check one minute later', async () => {
    const name = freshDomain();
    const { domain } = await ok('/v1/domains/add', { domain: name.toUpperCase() });
    expect(domain).toMatchObject({
      domain: name,
      scope: 'environment',
      status: 'pending',
      returnPath: { host: `bounces.${name}`, status: 'pending' },
      dkimSelector: 'mailsvc-202611',
      nextCheckAt: '2026-11-22T10:16:30.123Z',
      lastCheckedAt: null,
      dmarc: null,
    });
    const dkim = recordOf(domain, 'dkim');
    expect(dkim).toMatchObject({
      required: true,
      type: 'TXT',
      host: `mailsvc-202611._domainkey.${name}`,
      name: 'mailsvc-202611._domainkey',
      state: 'pending',
    });
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{390,}$/);
    // a 2048-bit key's record is over 255 characters: split for zone files, each at most 255
    expect(dkim.txtStrings.join('')).toBe(dkim.value);
    expect(dkim.txtStrings.every((x: string) => x.length <= 255)).toBe(true);
    expect(recordOf(domain, 'return_path_mx')).toMatchObject({
      host: `bounces.${name}`,
      value: MX_HOST,
      priority: 10,
    });
    expect(recordOf(domain, 'return_path_spf')).toMatchObject({ value: 'v=spf1 ip4:127.0.0.1 -all' });
    expect(recordOf(domain, 'dmarc')).toMatchObject({ required: false, host: `_dmarc.${name}` });
  });

  it('a domain whose records are published verifies, and its mail passes DKIM, SPF and DMARC from its own return path', async () => {
    const name = freshDomain();
    const hook = (
      await ok('/v1/webhooks/create', {
        url: 'https://hooks.example.com/mailsvc',
        events: ['domain.verified'],
      })
    ).endpoint;
    const { domain } = await ok('/v1/domains/add', { domain: name });
    publish(domain);
    await checkAt(MINUTE);
    await ok('/v1/webhooks/delete', { endpointId: hook.endpointId });
    const checked = await get(domain.domainId);
    expect(checked).toMatchObject({
      status: 'verified',
      returnPath: { status: 'verified' },
      verifiedAt: '2026-11-22T10:16:30.123Z',
      nextCheckAt: '2026-11-23T10:16:30.123Z',
      dmarc: { policy: 'reject' },
    });
    for (const r of checked.records) expect([r.purpose, r.state]).toEqual([r.purpose, 'verified']);

    const sent = await sendFrom(`hello@${name}`);
    expect(sent.statusCode, sent.body).toBe(200);
    await rig.worker.drain();
    const got = lastFrom(name);
    expect(got.mailFrom).toMatch(new RegExp(`@bounces\\.${name.replace(/\./g, '\\.')}$`));
    const auth = await authResults(got.raw, got.mailFrom);
    expect(auth.dkim.results[0]).toMatchObject({ signingDomain: name, selector: 'mailsvc-202611' });
    expect(auth.dkim.results[0]!.status.result).toBe('pass');
    expect(auth.spf.status.result).toBe('pass');
    expect(auth.dmarc.status.result).toBe('pass');

    // the transition was queued as a domain.verified event for the environment's endpoint
    const events = await h.runtime.deps.db
      .selectFrom('webhook_events')
      .select(['type', 'data', 'environment_id'])
      .where('type', 'like', 'domain.%')
      .where('tenant_id', '=', s.tenantId)
      .execute();
    expect(events.filter((e) => (e.data as Json).domain === name)).toEqual([
      expect.objectContaining({ type: 'domain.verified', environment_id: s.environmentId }),
    ]);
  });

  it('a pending domain is checked at 1, 5 and 15 minutes, then hourly, and fails after 72 hours; verify restarts it', async () => {
    const { domain } = await ok('/v1/domains/add', { domain: freshDomain() });
    const seen: string[] = [];
    for (const at of [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR]) {
      await checkAt(at);
      seen.push((await get(domain.domainId)).nextCheckAt);
    }
    expect(seen).toEqual([
      '2026-11-22T10:20:30.123Z',
      '2026-11-22T10:30:30.123Z',
      '2026-11-22T11:15:30.123Z',
      '2026-11-22T12:15:30.123Z',
    ]);
    expect(recordOf(await get(domain.domainId), 'dkim').state).toBe('missing');
    await checkAt(72 * HOUR);
    const failed = await get(domain.domainId);
    expect(failed).toMatchObject({ status: 'failed', nextCheckAt: null });

    // the send answers 403 sending_domain_not_ready naming the record
    const refused = await sendFrom(`hello@${domain.domain}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('sending_domain_not_ready');
    expect(refused.json().error.details[0].message).toContain(
      `mailsvc-202611._domainkey.${domain.domain}: missing`,
    );

    publish(domain);
    const restarted = (await ok('/v1/domains/verify', { domainId: domain.domainId })).domain;
    // a minute after the last check: a domain is asked about at most once a minute
    expect(restarted).toMatchObject({ status: 'pending', nextCheckAt: '2026-11-25T10:16:30.123Z' });
    const again = (await ok('/v1/domains/verify', { domainId: domain.domainId })).domain;
    expect(again.nextCheckAt).toBe('2026-11-25T10:16:30.123Z');
    await checkAt(72 * HOUR + MINUTE);
    expect((await get(domain.domainId)).status).toBe('verified');
  });

  it('a record removed after verification: degraded at the second bad check (mail still goes, the team is mailed), failed after the grace, verified when restored', async () => {
    const admin = `domain-admin-${Date.now()}@example.com`;
    await h.admin('members.invite', { tenant: s.tenantId, email: admin, role: 'admin' });
    const notices = async () =>
      (
        await h.runtime.deps.db
          .selectFrom('messages')
          .select(['data'])
          .where('to_email', '=', admin)
          .where('template_id', '=', 'action-required')
          .orderBy('created_at')
          .execute()
      ).map((m) => (m.data as { subject: string }).subject);
    const name = freshDomain();
    const { domain } = await ok('/v1/domains/add', { domain: name });
    publish(domain);
    await checkAt(MINUTE);
    dns.remove(recordOf(domain, 'dkim').host);
    await checkAt(MINUTE + 24 * HOUR);
    expect((await get(domain.domainId)).status).toBe('verified'); // once is not twice
    await checkAt(MINUTE + 24 * HOUR + 15 * MINUTE);
    const degraded = await get(domain.domainId);
    expect(degraded).toMatchObject({ status: 'degraded' });
    expect(recordOf(degraded, 'dkim').state).toBe('missing');
    expect((await sendFrom(`hello@${name}`)).statusCode).toBe(200);
    expect(await notices()).toEqual([`Sending domain ${name} needs attention`]);

    await checkAt(MINUTE + 24 * HOUR + 15 * MINUTE + 72 * HOUR);
    expect((await get(domain.domainId)).status).toBe('failed');
    expect(await notices()).toEqual([
      `Sending domain ${name} needs attention`,
      `Sending domain ${name} failed: its mail is refused`,
    ]);
    const refused = await sendFrom(`hello@${name}`);
    expect(refused.json().error).toMatchObject({ code: 'sending_domain_not_ready' });

    publish(domain);
    h.clock.set(new Date(Date.parse(START) + 2 * MINUTE + 24 * HOUR + 15 * MINUTE + 72 * HOUR).toISOString());
    await ok('/v1/domains/verify', { domainId: domain.domainId });
    await checker.drain();
    expect((await get(domain.domainId)).status).toBe('verified');
    const types = await h.runtime.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', domain.domainId)
      .orderBy('id')
      .execute();
    expect(types.map((t) => t.action).filter((a) => /^domain\.(verified|degraded|failed)$/.test(a))).toEqual([
      'domain.verified',
      'domain.degraded',
      'domain.failed',
      'domain.verified',
    ]);
  });

  it('a return path seen wrong is confirmed 15 minutes later, degraded, and mail falls back to the service’s bounce domain without failing', async () => {
    const name = freshDomain();
    const { domain } = await ok('/v1/domains/add', { domain: name });
    publish(domain);
    await checkAt(MINUTE);
    dns.set(`bounces.${name}`, 'MX', { exchange: 'mx.elsewhere.example.net', priority: 10 });
    await checkAt(MINUTE + 24 * HOUR);
    const once = await get(domain.domainId);
    expect(once).toMatchObject({
      returnPath: { status: 'verified' },
      nextCheckAt: '2026-11-23T10:31:30.123Z',
    });
    expect(recordOf(once, 'return_path_mx').problems.map((p: Json) => p.code)).toContain(
      'mx_points_elsewhere',
    );
    await checkAt(MINUTE + 24 * HOUR + 15 * MINUTE);
    const degraded = await get(domain.domainId);
    expect(degraded).toMatchObject({ status: 'verified', returnPath: { status: 'degraded' } });
    await rig.close();
    rig = await startSinkWorker(h.runtime.deps);
    expect((await sendFrom(`hello@${name}`)).statusCode).toBe(200);
    await rig.worker.drain();
    const got = lastFrom(name);
    expect(got.mailFrom).toMatch(/@mailsvc\.test$/);
    const auth = await authResults(got.raw, got.mailFrom);
    expect(auth.dkim.results[0]!.status.result).toBe('pass');
  });

  it('a DNS server that does not answer is could-not-check: nothing changes, the check comes back in 5 minutes', async () => {
    const { domain } = await ok('/v1/domains/add', { domain: freshDomain() });
    publish(domain);
    await checkAt(MINUTE);
    dns.fault(recordOf(domain, 'dkim').host, 'timeout');
    await checkAt(MINUTE + 24 * HOUR);
    await checkAt(MINUTE + 24 * HOUR + 5 * MINUTE);
    const after = await get(domain.domainId);
    expect(after.status).toBe('verified');
    expect(recordOf(after, 'dkim').state).toBe('unknown');
    expect(after.nextCheckAt).toBe('2026-11-23T10:26:30.123Z');
    dns.fault(recordOf(domain, 'dkim').host, null);
  });

  it('a DKIM rotation: the signer switches once the new record verifies, and mail signed with either selector verifies', async () => {
    const name = freshDomain();
    const { domain } = await ok('/v1/domains/add', { domain: name });
    publish(domain);
    await checkAt(MINUTE);
    expect((await sendFrom(`hello@${name}`)).statusCode).toBe(200);
    await rig.worker.drain();
    const before = lastFrom(name);

    h.clock.set('2026-12-02T08:00:00.000Z');
    const rotating = (await ok('/v1/domains/rotate-dkim', { domainId: domain.domainId })).domain;
    const next = recordOf(rotating, 'dkim_next');
    expect(next).toMatchObject({ selector: 'mailsvc-202612', state: 'pending', required: true });
    const conflict = await call('/v1/domains/rotate-dkim', { domainId: domain.domainId });
    expect(conflict.json().error.code).toBe('dkim_rotation_conflict');
    dns.set(next.host, 'TXT', [next.txtStrings ?? [next.value]]);
    h.clock.set('2026-12-02T08:01:00.000Z');
    await checker.drain();
    const rotated = await get(domain.domainId);
    expect(rotated.dkimSelector).toBe('mailsvc-202612');
    expect(recordOf(rotated, 'dkim_retiring')).toMatchObject({
      selector: 'mailsvc-202611',
      removableAt: '2026-12-09T08:01:00.000Z',
    });

    // the worker's key cache (a minute) has passed on the real clock only in production: restart it
    await rig.close();
    rig = await startSinkWorker(h.runtime.deps);
    expect((await sendFrom(`hello@${name}`)).statusCode).toBe(200);
    await rig.worker.drain();
    const after = lastFrom(name);
    const [a, b] = [
      await authResults(before.raw, before.mailFrom),
      await authResults(after.raw, after.mailFrom),
    ];
    // a second rotation waits for the retiring key's 7 days (its record must stay published)
    const early = await call('/v1/domains/rotate-dkim', { domainId: domain.domainId });
    expect([early.statusCode, early.json().error.code]).toEqual([409, 'dkim_rotation_conflict']);
    expect([a.dkim.results[0]!.selector, a.dkim.results[0]!.status.result]).toEqual([
      'mailsvc-202611',
      'pass',
    ]);
    expect([b.dkim.results[0]!.selector, b.dkim.results[0]!.status.result]).toEqual([
      'mailsvc-202612',
      'pass',
    ]);
  });

  it('one verified owner: a name another tenant verified is refused; a pending claim blocks no one; nobody reaches another tenant’s domain', async () => {
    const other = await seedRoomyScope(h, 'domains-b');
    const name = freshDomain();
    const pendingB = (await ok('/v1/domains/add', { domain: name }, other.apiKey)).domain;
    const { domain } = await ok('/v1/domains/add', { domain: name });
    publish(domain);
    await checkAt(MINUTE);
    expect((await get(domain.domainId)).status).toBe('verified');
    // B's pending claim checks the same name: the key there is A's, and A verified it
    await ok('/v1/domains/verify', { domainId: pendingB.domainId }, other.apiKey);
    await checkAt(2 * MINUTE);
    const b = await get(pendingB.domainId, other.apiKey);
    expect(b.status).toBe('pending');
    expect(recordOf(b, 'dkim').problems.map((p: Json) => p.code)).toEqual(
      expect.arrayContaining(['domain_claimed']),
    );
    await ok('/v1/domains/delete', { domainId: pendingB.domainId }, other.apiKey);
    const refused = await call('/v1/domains/add', { domain: name }, other.apiKey);
    expect([refused.statusCode, refused.json().error.code]).toEqual([409, 'domain_claimed']);
    for (const op of ['get', 'verify', 'rotate-dkim', 'delete']) {
      const res = await call(`/v1/domains/${op}`, { domainId: domain.domainId }, other.apiKey);
      expect([op, res.statusCode, res.json().error.code]).toEqual([op, 404, 'domain_not_found']);
    }
    expect((await ok('/v1/domains/list', {}, other.apiKey)).domains).toEqual([]);
  });

  it('a project or tenant domain sends for its environments; the most specific wins; the refusals name the scope’s domain', async () => {
    const tenantDomain = freshDomain();
    const t = (await ok('/v1/domains/add', { domain: tenantDomain, scope: 'tenant' })).domain;
    expect(t.scope).toBe('tenant');
    // pending: the tenant's domain is not ready, and other domains are not allowed
    expect((await sendFrom(`hello@${tenantDomain}`)).json().error.code).toBe('sending_domain_not_ready');
    publish(t);
    await checkAt(MINUTE);
    expect((await sendFrom(`hello@${tenantDomain}`)).statusCode).toBe(200);
    expect((await sendFrom('hello@elsewhere.example.net')).json().error.code).toBe('from_domain_not_allowed');

    const projectDomain = freshDomain();
    const p = (await ok('/v1/domains/add', { domain: projectDomain, scope: 'project' })).domain;
    expect((await sendFrom(`hello@${projectDomain}`)).json().error.code).toBe('sending_domain_not_ready');
    // the project's domain is chosen now, and not ready: that refusal comes first (DESIGN.md §3 step 7)
    expect((await sendFrom(`hello@${tenantDomain}`)).json().error.code).toBe('sending_domain_not_ready');
    const again = await call('/v1/domains/add', { domain: freshDomain(), scope: 'project' });
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'domain_already_added']);
    const list = (await ok('/v1/domains/list', {})).domains.map((d: Json) => d.scope);
    expect(list).toEqual(['project', 'tenant']);
    await ok('/v1/domains/delete', { domainId: p.domainId });
  });

  it('the operator’s override is audited and told to the app as the checker’s transitions are', async () => {
    const hook = (
      await ok('/v1/webhooks/create', { url: 'https://hooks.example.com/mailsvc', events: ['domain.failed'] })
    ).endpoint;
    const { domain } = await ok('/v1/domains/add', { domain: freshDomain() });
    const set = await h.admin('domains.set-status', { domain: domain.domainId, status: 'failed' });
    expect(set.domain.status).toBe('failed');
    await ok('/v1/webhooks/delete', { endpointId: hook.endpointId });
    const events = await h.runtime.deps.db
      .selectFrom('webhook_events')
      .select(['type', 'data'])
      .where('type', '=', 'domain.failed')
      .where('environment_id', '=', s.environmentId)
      .execute();
    expect(events.map((e) => (e.data as Json).domainId)).toContain(domain.domainId);
    expect((await get(domain.domainId)).nextCheckAt).toBeNull();
  });

  it('a send key cannot manage domains', async () => {
    const { apiKey } = await h.admin('keys.create', { environment: s.environmentId, scope: 'send' });
    const res = await call('/v1/domains/list', {}, apiKey);
    expect([res.statusCode, res.json().error.code]).toEqual([403, 'insufficient_scope']);
  });

  it('refuses names that are not domains, and the service’s own', async () => {
    for (const bad of ['localhost', 'not a domain', 'mailsvc.test', 'x.mailsvc.test']) {
      const res = await call('/v1/domains/add', { domain: bad });
      expect([bad, res.statusCode, res.json().error.code]).toEqual([bad, 400, 'invalid_request']);
    }
  });

  it('refuses a name whose DKIM record name would be longer than DNS allows (253), and takes one at the limit', async () => {
    // 217 characters: a.b.c.<label>.example (the DKIM record name then 253 at most)
    const named = (length: number) => {
      const head = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(50)}.`;
      return `${head}${'d'.repeat(length - head.length - '.example'.length)}.example`;
    };
    expect(named(217)).toHaveLength(217);
    const long = await call('/v1/domains/add', { domain: named(218) });
    expect([long.statusCode, long.json().error.code, long.json().error.details[0].path]).toEqual([
      400,
      'invalid_request',
      '/domain',
    ]);
    const fits = await call('/v1/domains/add', { domain: named(217) });
    expect(fits.statusCode, fits.body).toBe(200);
    for (const record of fits.json().domain.records as { name: string }[])
      expect(`${record.name}.${named(217)}`.length).toBeLessThanOrEqual(253);
    await call('/v1/domains/delete', { domainId: fits.json().domain.domainId });
  });
});

runCommonRouteTests('addDomain', () => h);
runCommonRouteTests('listDomains', () => h);
runCommonRouteTests('getDomain', () => h);
runCommonRouteTests('verifyDomain', () => h);
runCommonRouteTests('rotateDomainDkim', () => h);
runCommonRouteTests('deleteDomain', () => h);
