// The worker against a real in-process SMTP server: every scripted answer ends in the right
// message status, recipient state and number of attempts, on the harness's movable clock.
import { createRequire } from 'node:module';
import {
  backend,
  bearer,
  createHarness,
  type Harness,
  postJson,
  recipientRow,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { type SmtpSink, startSmtpSink } from '@mailsvc/testkit/smtp-sink';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimMessages } from '../src/db/repositories/queue.js';
import { smtpTransport } from '../src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { verifyUnsubscribeToken } from '../src/domain/consent/unsubscribe-token.js';
import { messageIdFromVerp, signedMessageIdHeader } from '../src/domain/feedback/signed-references.js';
import { OUTCOME_POLICY } from '../src/domain/outcome-policy.js';

const require = createRequire(import.meta.url);
const { dkimVerify } = require('mailauth/lib/dkim/verify') as {
  dkimVerify(
    raw: Buffer,
    opts: { resolver: (name: string, type: string) => Promise<string[][]> },
  ): Promise<{
    results: { signingDomain: string; status: { result: string }; signingHeaders: { keys: string } }[];
  }>;
};

let h: Harness;
let s: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let transport: ReturnType<typeof smtpTransport>;
const START = '2026-11-22T10:15:30.123Z';
const MINUTE = 60_000;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  sink = await startSmtpSink();
  transport = smtpTransport({ url: sink.url, poolSize: 2 });
  worker = new DeliveryWorker(h.runtime.deps, transport, {
    concurrency: 8,
    leaseMs: 5 * MINUTE,
    pollMs: 60 * MINUTE,
  });
});
afterEach(() => h.clock.set(START));
afterAll(async () => {
  await worker.stop();
  // Close the pooled connections first: the sink waits for open connections when it closes.
  await transport.close();
  await sink.close();
  await h.close();
});

let counter = 0;
const address = (tag: string) => `${tag}-${++counter}@example.com`;

async function send(body: Record<string, unknown>, apiKey = s.apiKey): Promise<string> {
  const res = await h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}

const login = (to: string) => ({ templateId: 'login-code', to, data: { code: '482913' } });

const message = (id: string) =>
  h.runtime.deps.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const events = async (id: string) =>
  (await h.runtime.deps.db.selectFrom('message_events').select('type').where('message_id', '=', id).execute())
    .map((e) => e.type)
    // events of one attempt share the movable clock's millisecond: compare as a set in order of the lifecycle
    .sort((a, b) => LIFECYCLE.indexOf(a) - LIFECYCLE.indexOf(b));
const LIFECYCLE = ['accepted', 'deferred', 'sent', 'bounced', 'failed', 'suppressed', 'expired'];

const recipient = (email: string) => recipientRow(h, s.environmentId, email);

const receivedFor = (to: string) => sink.received.filter((r) => r.rcptTo.includes(to));

describe('delivery outcomes', () => {
  it('writes template data shaped like an RFC 2047 encoded word into the Subject as text (data.subject)', async () => {
    const to = address('encoded-word');
    await send({ templateId: 'mention', to, data: { subject: '=?utf-8?Q?x=0D=0AX-Injected-SS:_1?=' } });
    await worker.drain();
    const [mail] = receivedFor(to);
    expect(mail!.parsed.subject).toBe('=?utf-8?Q?x=0D=0AX-Injected-SS:_1?=');
    expect(mail!.parsed.headers.has('x-injected-ss')).toBe(false);
  });

  it('delivers on 250: status sent, one attempt, template data deleted, the message parses back', async () => {
    const to = address('ok');
    const id = await send({ ...login(to), fromName: 'Acme Security', replyTo: 'help@acme.test' });
    await worker.drain();
    const row = await message(id);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, data: null, last_error: null });
    expect(row.sent_at).toEqual(new Date(START));
    expect(await events(id)).toEqual(['accepted', 'sent']);

    const [mail] = receivedFor(to);
    expect(mail).toBeDefined();
    const parsed = mail!.parsed;
    // The envelope sender is a signed VERP address that names this message and no other.
    expect(mail!.mailFrom).toMatch(new RegExp(`^bounces\\+${id}\\.[0-9a-f]{16}@mailsvc\\.test$`));
    expect(messageIdFromVerp(h.runtime.deps.keys.verp, mail!.mailFrom)).toBe(id);
    expect(parsed.messageId).toBe(signedMessageIdHeader(h.runtime.deps.keys.verp, id, 'mailsvc.test'));
    expect(parsed.headers.get('x-mailsvc-message-id')).toBe(id);
    expect(parsed.subject).toBe('Your login code');
    expect(parsed.from?.value).toEqual([{ name: 'Acme Security', address: 'notifications@mailsvc.test' }]);
    expect(parsed.replyTo?.value[0]?.address).toBe('help@acme.test');
    expect(parsed.to && !Array.isArray(parsed.to) && parsed.to.value[0]?.address).toBe(to);
    expect(parsed.text).toContain('482913');
    expect(parsed.html).toContain('482913');
    expect(parsed.headers.has('list-unsubscribe')).toBe(false);
  });

  it('keeps a send’s metadata after delivery, where template data is deleted, and never puts it into the mail', async () => {
    const to = address('metadata');
    const metadata = { userId: 'u-meta-7731', 'flow.step': 'reset-2' };
    const id = await send({ ...login(to), metadata });
    await worker.drain();
    const row = await message(id);
    expect(row).toMatchObject({ status: 'sent', data: null, metadata });
    const [mail] = receivedFor(to);
    expect(mail!.raw.toString('latin1')).not.toMatch(/u-meta-7731|reset-2|flow\.step/);
    const listed = await postJson(h, s.apiKey, '/v1/messages/list', { metadata: { userId: 'u-meta-7731' } });
    expect(listed.json().messages).toEqual([
      expect.objectContaining({ messageId: id, status: 'sent', metadata }),
    ]);
  });

  it('names the project in From when no fromName is set anywhere, never a bare address', async () => {
    const to = address('plain-from');
    await send(login(to));
    await worker.drain();
    const parsed = receivedFor(to)[0]!.parsed;
    expect(parsed.from?.value).toEqual([{ name: 'Acme App', address: 'notifications@mailsvc.test' }]);
    // an explicit (or configured) fromName still wins
    const named = address('named-from');
    await send({ ...login(named), fromName: 'Acme Security' });
    await worker.drain();
    expect(receivedFor(named)[0]!.parsed.from?.value[0]?.name).toBe('Acme Security');
  });

  it('retries 451 with backoff (1, 5, 15, 30 min) and expires a login code after its hour: 5 attempts', async () => {
    const to = address('soft');
    sink.script(to, 'soft');
    const id = await send(login(to));
    const waits = [0, 1, 5, 15, 30];
    for (const [i, wait] of waits.entries()) {
      h.clock.advance(wait * MINUTE);
      await worker.drain();
      const row = await message(id);
      expect(row.attempts).toBe(i + 1);
      expect(row.status).toBe(i < waits.length - 1 ? 'deferred' : 'expired');
    }
    const row = await message(id);
    expect(row.data).toBeNull();
    expect(row.last_error).toMatchObject({ code: 'expired' });
    expect(sink.attempts.get(to)).toBe(5);
    expect(await events(id)).toEqual(['accepted', 'deferred', 'deferred', 'deferred', 'deferred', 'expired']);
    expect(await recipient(to)).toBeUndefined();
  });

  it('defers a 451 after DATA and delivers it on the retry: a 4xx at any stage is temporary', async () => {
    const to = address('datasoft');
    sink.script(to, 'data-soft', 1);
    const id = await send(login(to));
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'deferred', attempts: 1 });
    expect((await message(id)).data).not.toBeNull();
    expect((await message(id)).last_error).toMatchObject({ code: 'temporary_failure' });
    h.clock.advance(MINUTE);
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(sink.received.filter((m) => m.rcptTo.includes(to))).toHaveLength(1);
    expect(await events(id)).toEqual(['accepted', 'deferred', 'sent']);
  });

  it('bounces on 550 5.1.1: status bounced, the recipient gets a hard bounce and a 24 h cooldown', async () => {
    const to = address('unknown');
    sink.script(to, 'unknown-user');
    const id = await send(login(to));
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'bounced', attempts: 1, data: null });
    expect((await message(id)).last_error).toMatchObject({ code: 'hard_bounce' });
    const r = await recipient(to);
    expect(r).toMatchObject({ hard_bounce_count: 1, bounce_streak: 1 });
    expect(r!.cooldown_until).toEqual(new Date(Date.parse(START) + 24 * 60 * MINUTE));
    const again = await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify(login(to)),
    });
    expect(again.statusCode).toBe(403);
    expect(again.json().error.code).toBe('recipient_suppressed');
  });

  it('says why a failure happened, in one vocabulary: the timeline event, messages/get and recipients/status', async () => {
    const post = (url: string, body: unknown) => postJson(h, s.apiKey, url, body);
    const cases = [
      ['unknown-user', 'bounced', 'user_unknown'],
      ['policy', 'failed', 'policy_blocked'],
      ['soft', 'deferred', 'rate_limited'],
    ] as const;
    for (const [script, status, reason] of cases) {
      const to = address(`why-${script}`);
      sink.script(to, script);
      const id = await send(login(to));
      await worker.drain();
      const got = (await post('/v1/messages/get', { messageId: id })).json();
      expect(got.message).toMatchObject({ status, error: { reason } });
      // (the accept and the attempt share the movable clock's millisecond: find the event by type)
      expect(got.events.find((e: { type: string }) => e.type === status)).toMatchObject({ reason });
      const items = (await post('/v1/recipients/status', { email: to })).json().messages;
      expect(items[0]).toMatchObject({ messageId: id, status, error: { reason } });
    }
  });

  it('fails on 550 5.7.1 without touching the recipient', async () => {
    const to = address('policy');
    sink.script(to, 'policy');
    const id = await send(login(to));
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'failed', attempts: 1, data: null });
    expect((await message(id)).last_error).toMatchObject({ code: 'rejected' });
    expect(await recipient(to)).toBeUndefined();
  });

  it('defers a dropped connection and delivers on the retry with the same Message-ID', async () => {
    const to = address('drop');
    // the transport re-sends once on a fresh connection, then the worker's backoff takes over
    sink.script(to, 'drop', 2);
    const id = await send(login(to));
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'deferred', attempts: 1 });
    expect((await message(id)).last_error).toMatchObject({ code: 'temporary_failure' });
    expect(sink.attempts.get(to)).toBe(2);
    expect(receivedFor(to)).toHaveLength(0);
    h.clock.advance(MINUTE);
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(receivedFor(to)[0]!.parsed.messageId).toBe(
      signedMessageIdHeader(h.runtime.deps.keys.verp, id, 'mailsvc.test'),
    );
  });

  it('suppresses the third hard bounce within 30 days for 30 days after the last', async () => {
    const to = address('thrice');
    sink.script(to, 'unknown-user');
    for (let i = 0; i < 3; i++) {
      // Each bounce starts a cooldown (24 h, 48 h); send again once it has passed.
      await send(login(to));
      await worker.drain();
      h.clock.advance((i === 0 ? 25 : 49) * 60 * MINUTE);
    }
    const r = await recipient(to);
    expect(r).toMatchObject({ hard_bounce_count: 3, bounce_streak: 3 });
    expect(r!.suppressed_until!.getTime() - r!.last_hard_bounce_at!.getTime()).toBe(30 * 24 * 60 * MINUTE);
  });
});

describe('before each attempt', () => {
  it('re-checks the recipient: a complaint after the accept ends the message suppressed, nothing sent', async () => {
    const to = address('complains');
    const id = await send(login(to));
    await h.runtime.deps.db
      .insertInto('recipients')
      .values({
        environment_id: s.environmentId,
        tenant_id: s.tenantId,
        email: to,
        complained_at: new Date(START),
      })
      .execute();
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'suppressed', attempts: 0, data: null });
    expect((await message(id)).last_error).toMatchObject({ code: 'recipient_complained' });
    expect(sink.attempts.get(to)).toBeUndefined();
  });

  it('expires a message whose expiry passed while it waited, without an attempt', async () => {
    const to = address('late');
    const id = await send(login(to));
    h.clock.advance(61 * MINUTE);
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'expired', attempts: 0 });
    expect(sink.attempts.get(to)).toBeUndefined();
  });

  it('claims security templates before transactional before notification', async () => {
    const t = await seedScope(h);
    const soloTransport = smtpTransport({ url: sink.url, poolSize: 1 });
    const solo = new DeliveryWorker(h.runtime.deps, soloTransport, {
      concurrency: 1,
      leaseMs: 5 * MINUTE,
      pollMs: 60 * MINUTE,
    });
    const a = address('prio');
    const ids = [
      await send({ templateId: 'mention', to: a, data: {} }, t.apiKey),
      await send({ templateId: 'welcome', to: a, data: {} }, t.apiKey),
      await send(login(a), t.apiKey),
    ];
    await solo.drain();
    const rows = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['id', 'sent_at', 'template_id'])
      .where('id', 'in', ids)
      .execute();
    const order = receivedFor(a).map((r) => r.parsed.headers.get('x-mailsvc-message-id'));
    expect(order).toEqual([ids[2], ids[1], ids[0]]);
    expect(rows.every((r) => r.sent_at)).toBe(true);
    await solo.stop();
    await soloTransport.close();
  });

  it("claims a crashed worker's messages before newer due mail, however much of it is waiting", async () => {
    const to = address('stale-first');
    const crashed = await send(login(to));
    const now = h.clock.now();
    await claimMessages(h.runtime.deps.db, {
      now,
      limit: 1,
      lockedUntil: new Date(now.getTime() + MINUTE),
      claimToken: 'crashed-worker',
    });
    for (let i = 0; i < 4; i++) await send(login(address('newer')));
    h.clock.advance(MINUTE + 1);
    const later = h.clock.now();
    const claimed = await claimMessages(h.runtime.deps.db, {
      now: later,
      limit: 2,
      lockedUntil: new Date(later.getTime() + MINUTE),
      claimToken: 'next-worker',
    });
    expect(claimed.map((m) => m.id)).toContain(crashed);
    h.clock.advance(MINUTE + 1);
    await worker.drain();
    expect(await message(crashed)).toMatchObject({ status: 'sent' });
  });

  it("takes over a crashed worker's message once its lease has run out; the old claim can no longer record", async () => {
    const to = address('crash');
    const id = await send(login(to));
    const now = h.clock.now();
    const [claimed] = await claimMessages(h.runtime.deps.db, {
      now,
      limit: 1,
      lockedUntil: new Date(now.getTime() + 5 * MINUTE),
      claimToken: 'crashed-worker',
    });
    expect(claimed?.id).toBe(id);
    expect(await worker.drain()).toBe(0);
    h.clock.advance(5 * MINUTE + 1);
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'sent', attempts: 1 });
    const { recordAttempt } = await import('../src/db/repositories/queue.js');
    expect(
      await recordAttempt(
        h.runtime.deps.db,
        {
          messageId: id,
          claimToken: 'crashed-worker',
          status: 'failed',
          isAttempt: true,
          nextAttemptAt: null,
          error: null,
          bounce: false,
          event: { id: 'evt_X', details: {} },
          now: h.clock.now(),
        },
        OUTCOME_POLICY,
      ),
    ).toBe(false);
    expect(await message(id)).toMatchObject({ status: 'sent' });
  });
});

describe('leases', () => {
  it('renews the lease of a message still being sent, so no other worker takes it over', async () => {
    const slow = await startSmtpSink({ slowMs: 3000 });
    const lease = 1000;
    const transport = smtpTransport({ url: slow.url, poolSize: 1 });
    const a = new DeliveryWorker(h.runtime.deps, transport, {
      concurrency: 2,
      leaseMs: lease,
      pollMs: 60 * MINUTE,
    });
    const b = new DeliveryWorker(h.runtime.deps, transport, {
      concurrency: 2,
      leaseMs: lease,
      pollMs: 60 * MINUTE,
    });
    await worker.drain();
    const to = address('slow');
    const id = await send(login(to));
    a.start();
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await sleep(100);
    expect(await message(id)).toMatchObject({ status: 'sending' });
    // past the first lease, but within the one the heartbeat (every lease/3) has renewed since
    h.clock.advance(lease - 100);
    // at least two heartbeats (every lease/3 of real time) fall in this wait
    await sleep(900);
    h.clock.advance(lease - 100);
    expect(await b.runOnce()).toBe(0);
    await a.stop();
    expect(await message(id)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(slow.received).toHaveLength(1);
    await transport.close();
    await slow.close();
  });
});

describe('headers and signature', () => {
  it('adds RFC 8058 List-Unsubscribe headers and the footer link to notification templates', async () => {
    const to = address('notify');
    const id = await send({ templateId: 'mention', to, data: {} });
    await worker.drain();
    const mail = receivedFor(to)[0]!.parsed;
    const line = (name: string) =>
      mail.headerLines.find((l) => l.key === name)?.line.replace(/\r?\n\s+/g, ' ');
    expect(line('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const url = /^List-Unsubscribe: <([^>]+)>$/.exec(line('list-unsubscribe') ?? '')?.[1] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/u\/v1\.[A-Za-z0-9_-]+$/);
    expect(url).not.toContain(to.split('@')[0]);
    const token = url.split('/u/')[1]!;
    expect(verifyUnsubscribeToken(h.runtime.deps.keys.unsubscribe, token)).toEqual({
      environmentId: s.environmentId,
      email: to,
      scope: 'app_notifications',
    });
    expect(mail.html).toContain(`href="${url}"`);
    expect(mail.text).toContain(url);
    expect(await message(id)).toMatchObject({ status: 'sent' });
  });

  it('signs mail from a domain with a DKIM key; the signature verifies and covers both List-Unsubscribe headers', async () => {
    const t = await seedScope(h);
    const domain = `mail-${counter}.acme-dkim.test`;
    const { domain: record } = await h.admin('domains.add', { domain, project: t.projectId });
    await h.admin('domains.set-status', { domain, status: 'verified' });
    await h.admin('domains.set-return-path', { domain, status: 'verified' });
    expect(record.dkim.record.name).toBe(`${record.dkim.selector}._domainkey.${domain}`);
    const to = address('signed');
    await send({ templateId: 'mention', to, data: {} }, t.apiKey);
    await worker.drain();
    const mail = receivedFor(to)[0]!;
    expect(mail.parsed.messageId).toMatch(new RegExp(`@${domain.replace(/\./g, '\\.')}>$`));
    // Return-path alignment: bounces for a verified domain go to bounces.<domain> (SPF, DMARC).
    expect(mail.mailFrom).toMatch(
      new RegExp(`^bounces\\+msg_\\w{26}\\.[0-9a-f]{16}@bounces\\.${domain.replace(/\./g, '\\.')}$`),
    );
    expect(record.returnPath.record).toEqual({
      type: 'MX',
      name: `bounces.${domain}`,
      priority: 10,
      value: 'mailsvc.test',
    });
    const resolver = async (name: string, type: string) => {
      if (type === 'TXT' && name === record.dkim.record.name) return [[record.dkim.record.value]];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    const { results } = await dkimVerify(mail.raw, { resolver });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ signingDomain: domain, status: { result: 'pass' } });
    const signed = results[0]!.signingHeaders.keys.toLowerCase().split(': ').join(':');
    expect(signed).toContain('list-unsubscribe:list-unsubscribe-post');
    // a changed body no longer verifies
    const tampered = Buffer.from(
      mail.raw.toString('latin1').replace('mentioned you', 'mentioned yov'),
      'latin1',
    );
    const bad = await dkimVerify(tampered, { resolver });
    expect(bad.results[0]!.status.result).not.toBe('pass');
  });

  it('keeps the service bounce domain as the return path until the domain’s return path is marked published', async () => {
    const t = await seedScope(h);
    const domain = `mail-${counter}.acme-rp.test`;
    await h.admin('domains.add', { domain, project: t.projectId });
    await h.admin('domains.set-status', { domain, status: 'verified' });
    const to = address('return-path');
    await send({ templateId: 'mention', to, data: {} }, t.apiKey);
    await worker.drain();
    const mail = receivedFor(to)[0]!;
    expect(mail.parsed.headers.has('dkim-signature')).toBe(true);
    expect(mail.mailFrom).toMatch(/^bounces\+msg_\w{26}\.[0-9a-f]{16}@mailsvc\.test$/);
  });

  it('signs only with the key of a verified domain: one set back to failed after the accept signs nothing', async () => {
    const t = await seedScope(h);
    const domain = `mail-${counter}.acme-unverified.test`;
    await h.admin('domains.add', { domain, project: t.projectId });
    await h.admin('domains.set-status', { domain, status: 'verified' });
    const to = address('unverified');
    await send({ templateId: 'mention', to, data: {} }, t.apiKey);
    await h.admin('domains.set-status', { domain, status: 'failed' });
    await worker.drain();
    const mail = receivedFor(to)[0]!;
    expect(mail.parsed.headers.has('dkim-signature')).toBe(false);
    expect(mail.mailFrom).toMatch(/@mailsvc\.test$/);
  });

  it('refuses to register the service default sending or bounce domain, or one of their subdomains', async () => {
    const t = await seedScope(h);
    for (const domain of ['mailsvc.test', 'MAIL.mailsvc.test', 'a.b.mailsvc.test']) {
      await expect(h.admin('domains.add', { domain, tenant: t.tenantId }), domain).rejects.toMatchObject({
        code: 'invalid_request',
      });
    }
    await expect(
      h.admin('domains.add', { domain: 'notmailsvc.test', tenant: t.tenantId }),
    ).resolves.toBeDefined();
    // A separate bounce domain is reserved the same way.
    const deps = {
      ...h.runtime.deps,
      config: { ...h.runtime.deps.config, MAILSVC_BOUNCE_DOMAIN: 'bounces.service.example' },
    };
    const { adminCommands } = await import('../src/domain/admin/index.js');
    await expect(
      adminCommands['domains.add']!.run(
        deps,
        { domain: 'x.bounces.service.example', tenant: t.tenantId } as never,
        'test',
      ),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('uses STARTTLS when the relay offers it', async () => {
    const tls = await startSmtpSink({ offerStartTls: true });
    const transport = smtpTransport({ url: tls.url, poolSize: 1, tls: { rejectUnauthorized: false } });
    const t = await seedScope(h);
    const tw = new DeliveryWorker(h.runtime.deps, transport, {
      concurrency: 2,
      leaseMs: MINUTE,
      pollMs: MINUTE,
    });
    // Only this scope's message is due for this worker: the shared worker has drained the rest.
    await worker.drain();
    const to = address('tls');
    await send(login(to), t.apiKey);
    await tw.drain();
    expect(tls.received[0]?.isSecure).toBe(true);
    await tw.stop();
    await transport.close();
    await tls.close();
  });
});

describe(`wake-up (${backend})`, () => {
  it('records an unexpected throw as an error event on the message and retries it with backoff, not after its lease', async () => {
    const throwing = new DeliveryWorker(
      h.runtime.deps,
      {
        name: 'smtp',
        send: async () => {
          throw new Error('a bug in a transport');
        },
        close: async () => {},
      },
      { concurrency: 4, leaseMs: 5 * MINUTE, pollMs: 60 * MINUTE },
    );
    await worker.drain();
    const to = address('throws');
    const id = await send(login(to));
    h.clock.advance(1000); // the timeline orders events by time
    const retryAt = new Date(Date.parse(START) + 1000 + MINUTE).toISOString();
    expect(await throwing.drain()).toBe(1);
    const row = await message(id);
    expect(row).toMatchObject({ status: 'deferred', attempts: 1, locked_until: null, claim_token: null });
    expect(row.last_error).toMatchObject({ code: 'internal_error' });
    // the first delay of the retry schedule, not the 5-minute lease
    expect(row.next_attempt_at.toISOString()).toBe(retryAt);
    const timeline = await h.request({
      method: 'POST',
      url: '/v1/messages/get',
      headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ messageId: id }),
    });
    expect(timeline.json().events.map((e: { type: string }) => e.type)).toEqual(['accepted', 'error']);
    expect(timeline.json().events[1]).toMatchObject({
      reason: 'internal error in the send step',
      attempt: 1,
      nextAttemptAt: retryAt,
    });
    // the retry, with a transport that works, delivers it
    h.clock.advance(MINUTE);
    await worker.drain();
    expect(await message(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(receivedFor(to)).toHaveLength(1);
  });

  it('picks a new message up at once through the queue signal, not the 1-hour poll', async () => {
    const liveTransport = smtpTransport({ url: sink.url, poolSize: 1 });
    const live = new DeliveryWorker(h.runtime.deps, liveTransport, {
      concurrency: 4,
      leaseMs: 5 * MINUTE,
      pollMs: 60 * MINUTE,
    });
    await worker.drain();
    live.start();
    // let the first (start-up) claim finish, and on PostgreSQL the LISTEN connection open
    await new Promise((r) => setTimeout(r, 300));
    const to = address('wake');
    const id = await send(login(to));
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && receivedFor(to).length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(receivedFor(to)).toHaveLength(1);
    await live.stop();
    await liveTransport.close();
    expect(await message(id)).toMatchObject({ status: 'sent' });
  });
});
