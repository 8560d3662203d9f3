// @mailsvc/client against the real core API (listening on a port, on the suite's backend):
// sends, replays, every class of error typed, and retries that never send twice.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { backend, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { startTcpProxy, type TcpProxy } from '@mailsvc/testkit/tcp-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isMailsvcError,
  Mailsvc,
  MailsvcEvents,
  type RetryEvent,
  type SendEmailInput,
} from '../src/index.js';
import { failure, messagesTo as messagesOf } from './helpers.js';
import { type HttpFaultProxy, startHttpFaultProxy } from './http-fault-proxy.js';

let h: Harness;
let s: Scope;
let url: string;

async function listen(server: { listen(o: { port: number; host: string }): Promise<unknown> } & object) {
  await server.listen({ port: 0, host: '127.0.0.1' });
}

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  await listen(h.app);
  url = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
});
afterAll(() => h.close());

const messagesTo = (to: string) => messagesOf(h, to);

describe('Mailsvc against the core API', () => {
  it('sends a templated email: accepted, one message stored for the recipient', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const result = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-send@example.com',
      data: { code: '482913' },
    });
    expect(result).toEqual({
      ok: true,
      status: 'accepted',
      messageId: expect.stringMatching(/^msg_/),
      idempotent: false,
    });
    const rows = await messagesTo('sdk-send@example.com');
    expect(rows).toEqual([{ id: result.messageId, template_id: 'login-code' }]);
  });

  it('replays a send with the same idempotency key: same messageId, idempotent true, one message', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: `${url}//` });
    const body: SendEmailInput = {
      templateId: 'login-code',
      to: 'sdk-replay@example.com',
      data: { code: '111222' },
    };
    const first = await client.emails.send(body, { idempotencyKey: 'sdk-replay-1' });
    const again = await client.emails.send(body, { idempotencyKey: 'sdk-replay-1' });
    expect(again).toEqual({ ...first, idempotent: true });
    expect(await messagesTo('sdk-replay@example.com')).toHaveLength(1);
  });

  it('gives two calls without a key two messages (each call makes its own key)', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const body: SendEmailInput = {
      templateId: 'login-code',
      to: 'sdk-twice@example.com',
      data: { code: '333444' },
    };
    const a = await client.emails.send(body);
    const b = await client.emails.send(body);
    expect(a.messageId).not.toBe(b.messageId);
    expect(await messagesTo('sdk-twice@example.com')).toHaveLength(2);
  });

  it("reads the key's quota", async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const { quota } = await client.quota.get();
    expect(quota).toMatchObject({
      tenantId: s.tenantId,
      projectId: s.projectId,
      environmentId: s.environmentId,
      planId: s.planId,
      monthly: { limit: 1000, overageAllowed: false },
    });
  });
});

describe('recipients and messages', () => {
  it('reads a recipient’s status with its recent messages, and resubscribes after an opt-in', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const { messageId } = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-status@example.com',
      data: { code: '246810' },
    });
    const { recipient, messages } = await client.recipients.status({
      email: 'sdk-status@example.com',
      limit: 5,
    });
    expect(recipient).toMatchObject({
      emailMasked: 's***@example.com',
      state: 'clear',
      canSendNotifications: true,
    });
    expect(messages.map((m) => m.messageId)).toEqual([messageId]);
    expect(
      await client.recipients.resubscribe({ email: 'sdk-status@example.com', scope: 'app_notifications' }),
    ).toEqual({
      ok: true,
    });
    const err = await failure(
      client.recipients.resubscribe({ email: 'not an address', scope: 'app_notifications' }),
    );
    expect(err).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: 'Invalid resubscribe request: expected a valid email and scope app_notifications.',
    });
  });

  it('signs relay events the server verifies (events.intake): applied once, replayed after, invalid_signature for a wrong secret', async () => {
    const { secret } = (await h.admin('events.create-secret', { environment: s.environmentId })).secret;
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const { messageId } = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-relay@example.com',
      data: { code: '246802' },
    });
    await h.runtime.deps.db
      .updateTable('messages')
      .set({ status: 'sent' })
      .where('id', '=', messageId)
      .execute();
    const event = { environmentId: s.environmentId, type: 'delivered' as const, messageId };
    expect(await client.events.intake(event, { secret, webhookId: 'relay-evt-1' })).toEqual({
      ok: true,
      outcome: 'applied',
    });
    expect((await client.events.intake(event, { secret, webhookId: 'relay-evt-1' })).outcome).toBe(
      'replayed',
    );
    // A bridge holding only the secret: no API key needed.
    const events = new MailsvcEvents({ baseUrl: url });
    expect((await events.intake(event, { secret, webhookId: 'relay-evt-1' })).outcome).toBe('replayed');
    const wrong = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const err = await failure(events.intake(event, { secret: wrong }));
    expect(err.is('invalid_signature')).toBe(true);
    expect(err.status).toBe(401);
    const sns = await failure(
      client.events.ses({
        Type: 'Notification',
        MessageId: 'm-1',
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:t',
        Message: '{}',
        Timestamp: new Date().toISOString(),
        SignatureVersion: '2',
        Signature: 'AAAA',
        SigningCertURL: 'https://example.com/cert.pem',
      }),
    );
    expect(sns.is('invalid_signature')).toBe(true);
  });

  it('reads a message’s timeline and types message_not_found', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const { messageId } = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-message@example.com',
      data: { code: '135791' },
    });
    const { message, events } = await client.messages.get({ messageId });
    expect(message).toMatchObject({ messageId, status: 'queued', emailMasked: 's***@example.com' });
    expect(events.map((e) => e.type)).toEqual(['accepted']);
    const err = await failure(client.messages.get({ messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' }));
    expect(err.is('message_not_found')).toBe(true);
    expect(err.status).toBe(404);
  });

  it('finds messages by metadata a page at a time, and iterates every page with listAll', async () => {
    const scope = await seedScope(h);
    const client = new Mailsvc({ apiKey: scope.apiKey, baseUrl: url });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { messageId } = await client.emails.send({
        templateId: 'login-code',
        to: `sdk-list-${i}@example.com`,
        data: { code: '135791' },
        metadata: { userId: 'u_sdk', n: String(i) },
      });
      sent.push(messageId);
      h.clock.advance(1000);
    }
    const page = await client.messages.list({ metadata: { userId: 'u_sdk' }, pageSize: 2 });
    expect(page.messages.map((m) => m.messageId)).toEqual([sent[4], sent[3]]);
    expect(page.messages[0]!.metadata).toEqual({ userId: 'u_sdk', n: '4' });
    expect(page.nextCursor).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const m of client.messages.listAll({ metadata: { userId: 'u_sdk' }, pageSize: 2 }))
      all.push(m.messageId);
    expect(all).toEqual([...sent].reverse());
    const err = await failure(client.messages.list({ cursor: page.nextCursor }));
    expect(err.is('invalid_request')).toBe(true);
    expect(err.details?.[0]?.path).toBe('/cursor');
  });
});

describe('batch sends', () => {
  it('sends a batch typed item by item: results in order, a refused item beside accepted ones, a retry replays it', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const items: SendEmailInput[] = [
      { templateId: 'login-code', to: 'sdk-batch-1@example.com', data: { code: '135791' } },
      { templateId: 'login-code', to: 'not-an-address', data: { code: '135791' } },
    ];
    const first = await client.emails.sendBatch(items, { idempotencyKey: 'sdk-batch-1' });
    expect(first.results.map((r) => r.status)).toEqual(['accepted', 'refused']);
    expect([first.accepted, first.refused, first.idempotent]).toEqual([1, 1, false]);
    const again = await client.emails.sendBatch(items, { idempotencyKey: 'sdk-batch-1' });
    expect(again).toEqual({ ...first, idempotent: true });
    expect(await messagesTo('sdk-batch-1@example.com')).toHaveLength(1);
  });
});

describe('API keys', () => {
  it('creates a send-only key, sends with it, lists it, and revokes it; a send key is refused the list with insufficient_scope', async () => {
    const scope = await seedScope(h);
    const admin = new Mailsvc({ apiKey: scope.apiKey, baseUrl: url });
    const { key, apiKey } = await admin.keys.create({ scope: 'send', name: 'sdk send key' });
    expect(key).toMatchObject({ scope: 'send', name: 'sdk send key', status: 'active' });
    const sender = new Mailsvc({ apiKey, baseUrl: url });
    const { messageId } = await sender.emails.send({
      templateId: 'login-code',
      to: 'sdk-key@example.com',
      data: { code: '135791' },
    });
    expect(messageId).toMatch(/^msg_/);
    const err = await failure(sender.messages.list());
    expect(err.is('insufficient_scope')).toBe(true);
    expect(err.status).toBe(403);
    expect((await admin.keys.list()).keys.map((k) => k.keyId)).toContain(key.keyId);
    expect((await admin.keys.revoke({ keyId: key.keyId })).key.status).toBe('revoked');
    const actions: string[] = [];
    for await (const e of admin.audit.listAll({
      action: ['api_key.created', 'api_key.revoked'],
      pageSize: 1,
    }))
      if (e.targetId === key.keyId) actions.push(e.action);
    expect(actions.sort()).toEqual(['api_key.created', 'api_key.revoked']);
  });
});

describe('contact groups', () => {
  it('upserts, lists, adds to, removes from and deletes a group, and types group_not_found and contact_not_found', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const now = h.clock.now();
    const contactId = 'ct_01M81C1XJB7Y4KHB01G4B1P0M5';
    await h.runtime.deps.db
      .insertInto('contacts')
      .values({
        id: contactId,
        tenant_id: s.tenantId,
        email: 'sdk-group@example.com',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const { group } = await client.contacts.groups.upsert({ name: 'SDK Testers' });
    expect(group).toMatchObject({ slug: 'sdk-testers', name: 'SDK Testers', contactCount: 0 });
    expect(await client.contacts.groups.add({ groupSlug: 'sdk-testers', contactIds: [contactId] })).toEqual({
      ok: true,
      updated: 1,
    });
    expect((await client.contacts.groups.list()).groups).toEqual([{ ...group, contactCount: 1 }]);
    const unknown = await failure(
      client.contacts.groups.add({ groupSlug: 'sdk-testers', contactIds: ['nobody@example.com'] }),
    );
    expect(unknown.is('contact_not_found')).toBe(true);
    expect(unknown.details).toEqual([
      { path: '/contactIds/0', message: 'no contact of the tenant has this email' },
    ]);
    expect(
      await client.contacts.groups.remove({
        groupSlug: 'sdk-testers',
        contactIds: ['sdk-group@example.com'],
      }),
    ).toEqual({ ok: true, updated: 1 });
    expect(await client.contacts.groups.delete({ groupSlug: 'sdk-testers' })).toEqual({ ok: true });
    const gone = await failure(client.contacts.groups.delete({ groupSlug: 'sdk-testers' }));
    expect([gone.is('group_not_found'), gone.status]).toEqual([true, 404]);
  });
});

describe('bulk sends', () => {
  it('previews, queues (with a generated Idempotency-Key: a retry queues nothing more) and reads a bulk send', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const now = h.clock.now();
    await h.runtime.deps.db
      .insertInto('contacts')
      .values(
        ['sdk-bulk-1@example.com', 'sdk-bulk-2@example.com'].map((email, i) => ({
          id: `ct_01M81C1XJB7Y4KHB01G4B1P0B${i}`,
          tenant_id: s.tenantId,
          email,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const to: [string, ...string[]] = [
      'sdk-bulk-1@example.com',
      'sdk-bulk-2@example.com',
      'ghost@example.com',
    ];
    const body = { templateId: 'mention', to, data: {} };
    expect(await client.contacts.sendDryRun(body)).toEqual({
      ok: true,
      eligible: 2,
      skipped: { unsubscribed: 0, complained: 0, suppressed: 0, duplicate: 0, not_found: 1 },
    });
    const sent = await client.contacts.send(body, { idempotencyKey: 'sdk-bulk-1' });
    expect(sent).toEqual({ ok: true, jobId: expect.stringMatching(/^job_/), queued: 2, idempotent: false });
    expect(await client.contacts.send(body, { idempotencyKey: 'sdk-bulk-1' })).toEqual({
      ...sent,
      idempotent: true,
    });
    const { job } = await client.contacts.getSend({ jobId: sent.jobId });
    expect(job).toMatchObject({ jobId: sent.jobId, status: 'running', queued: 2, progress: { queued: 2 } });
    const missing = await failure(client.contacts.getSend({ jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5' }));
    expect([missing.is('job_not_found'), missing.status]).toEqual([true, 404]);
  });
});

describe('typed errors: every class of answer becomes a MailsvcError with code, status, requestId, details', () => {
  const send = (client: Mailsvc, body: Record<string, unknown> = {}, idempotencyKey?: string) =>
    client.emails.send(
      { templateId: 'login-code', to: 'sdk-errors@example.com', data: { code: '123456' }, ...body },
      idempotencyKey === undefined ? {} : { idempotencyKey },
    );

  it('400 invalid_request with the path of each problem', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const err = await failure(send(client, { to: 42 } as never));
    expect(err).toMatchObject({ code: 'invalid_request', status: 400, attempts: 1 });
    expect(err.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(err.details.map((d) => d.path)).toContain('/to');
  });

  it('400 invalid_template_data naming the template field, narrowable by code', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const err = await failure(send(client, { data: {} }));
    expect(err.is('invalid_template_data')).toBe(true);
    expect(isMailsvcError(err, 'invalid_template_data', 'invalid_request')).toBe(true);
    expect(isMailsvcError(err, 'rate_limited')).toBe(false);
    expect(err.status).toBe(400);
    expect(err.details.some((d) => d.path.endsWith('/code'))).toBe(true);
  });

  it('401 invalid_api_key for a wrong key, with no retry', async () => {
    const retries: RetryEvent[] = [];
    const client = new Mailsvc({
      apiKey: `msk_${s.keyId.slice(4)}_wrong-secret`,
      baseUrl: url,
      onRetry: (e) => retries.push(e),
    });
    const err = await failure(client.quota.get());
    expect(err).toMatchObject({ code: 'invalid_api_key', status: 401, attempts: 1 });
    expect(retries).toEqual([]);
  });

  it('402 trial_expired and 403 api_key_revoked', async () => {
    const expired = await seedScope(h, { trialEndsAt: '2026-01-01T00:00:00Z' });
    const err = await failure(send(new Mailsvc({ apiKey: expired.apiKey, baseUrl: url })));
    expect(err).toMatchObject({ code: 'trial_expired', status: 402 });
    const revoked = await seedScope(h);
    await h.admin('keys.revoke', { id: revoked.keyId });
    const err2 = await failure(new Mailsvc({ apiKey: revoked.apiKey, baseUrl: url }).quota.get());
    expect(err2).toMatchObject({ code: 'api_key_revoked', status: 403 });
  });

  it('404 template_not_found and 409 idempotency_key_reused', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    expect(await failure(send(client, { templateId: 'no-such-template' }))).toMatchObject({
      code: 'template_not_found',
      status: 404,
    });
    await send(client, {}, 'sdk-reused');
    expect(await failure(send(client, { data: { code: '999999' } }, 'sdk-reused'))).toMatchObject({
      code: 'idempotency_key_reused',
      status: 409,
    });
  });

  it('network_error (status 0) when nothing listens, after the configured retries', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const retries: RetryEvent[] = [];
    const client = new Mailsvc({
      apiKey: s.apiKey,
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 1,
      onRetry: (e) => retries.push(e),
    });
    const err = await failure(client.quota.get());
    expect(err).toMatchObject({ code: 'network_error', status: 0, attempts: 2, requestId: undefined });
    expect(err.message).toContain('ECONNREFUSED');
    expect(retries.map((r) => r.error.code)).toEqual(['network_error']);
  });

  it('timeout (status 0) when the answer does not come in time, and invalid_response for a non-API answer', async () => {
    const slow = http.createServer((req, res) => {
      if (req.url === '/v1/quota') return; // never answers
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      const timeout = await failure(
        new Mailsvc({ apiKey: s.apiKey, baseUrl: base, timeoutMs: 200, maxRetries: 0 }).quota.get(),
      );
      expect(timeout).toMatchObject({ code: 'timeout', status: 0 });
      const html = await failure(
        new Mailsvc({ apiKey: s.apiKey, baseUrl: base, maxRetries: 0 }).emails.send({
          templateId: 'login-code',
          to: 'x@example.com',
          data: { code: '1' },
        }),
      );
      expect(html).toMatchObject({ code: 'invalid_response', status: 502 });
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });

  it('rejects with the caller’s abort reason and does not retry', async () => {
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: url });
    const controller = new AbortController();
    controller.abort(new Error('stopped by the caller'));
    await expect(client.quota.get({ signal: controller.signal })).rejects.toThrow('stopped by the caller');
  });

  it('refuses a client without an API key or with a base URL that is not http(s)', () => {
    expect(() => new Mailsvc({ apiKey: '', baseUrl: url })).toThrow(/apiKey is required/);
    expect(() => new Mailsvc({ apiKey: s.apiKey, baseUrl: 'localhost:3000' })).toThrow(/baseUrl/);
  });
});

describe('retries never send twice', () => {
  let proxy: HttpFaultProxy;
  beforeAll(async () => {
    proxy = await startHttpFaultProxy(url);
  });
  afterAll(() => proxy.close());

  it('retries a 503 after Retry-After with the same Idempotency-Key: one message', async () => {
    const retries: RetryEvent[] = [];
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: proxy.url, onRetry: (e) => retries.push(e) });
    proxy.seen.length = 0;
    proxy.plan('unavailable');
    const result = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-503@example.com',
      data: { code: '503503' },
    });
    expect(result.idempotent).toBe(false);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toMatchObject({ code: 'service_unavailable', status: 503, retryAfter: 1 });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(proxy.seen.map((r) => r.fault)).toEqual(['unavailable', 'pass']);
    expect(proxy.seen[0]!.idempotencyKey).toBeDefined();
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
    expect(await messagesTo('sdk-503@example.com')).toEqual([
      { id: result.messageId, template_id: 'login-code' },
    ]);
  });

  it('retries after the connection drops once the server accepted: the replay answers, one message', async () => {
    const retries: RetryEvent[] = [];
    const client = new Mailsvc({ apiKey: s.apiKey, baseUrl: proxy.url, onRetry: (e) => retries.push(e) });
    proxy.seen.length = 0;
    proxy.plan('drop-after-forwarding');
    const result = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-drop@example.com',
      data: { code: '404404' },
    });
    expect(retries.map((r) => r.error.code)).toEqual(['network_error']);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
    // The first attempt was accepted; the retry is its replay.
    expect(result.idempotent).toBe(true);
    expect(await messagesTo('sdk-drop@example.com')).toEqual([
      { id: result.messageId, template_id: 'login-code' },
    ]);
  });

  it('honours the server’s Retry-After on a real 429 and then succeeds', async () => {
    const limited = await seedScope(h);
    await h.admin('plans.update', { id: limited.planId, rateLimitPerSecond: 1, rateLimitBurst: 1 });
    const retries: RetryEvent[] = [];
    const client = new Mailsvc({ apiKey: limited.apiKey, baseUrl: url, onRetry: (e) => retries.push(e) });
    const body = (to: string): SendEmailInput => ({ templateId: 'login-code', to, data: { code: '429429' } });
    const results = await Promise.all([
      client.emails.send(body('sdk-429-a@example.com')),
      client.emails.send(body('sdk-429-b@example.com')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted']);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    for (const r of retries) {
      expect(r.error).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(r.error.retryAfter).toBeGreaterThanOrEqual(1);
      expect(r.delayMs).toBeGreaterThanOrEqual(r.error.retryAfter! * 1000);
    }
    expect(await messagesTo('sdk-429-a@example.com')).toHaveLength(1);
    expect(await messagesTo('sdk-429-b@example.com')).toHaveLength(1);
  });

  it('gives up on a 429 whose Retry-After is over maxRetryAfterSeconds, and with maxRetries 0', async () => {
    const limited = await seedScope(h);
    await h.admin('plans.update', { id: limited.planId, rateLimitPerSecond: 1, rateLimitBurst: 1 });
    const client = new Mailsvc({ apiKey: limited.apiKey, baseUrl: url, maxRetries: 0 });
    const outcomes = await Promise.allSettled([client.quota.get(), client.quota.get()]);
    const refused = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({ code: 'rate_limited', status: 429, attempts: 1 });
    const impatient = new Mailsvc({ apiKey: limited.apiKey, baseUrl: url, maxRetryAfterSeconds: 0 });
    const err = await failure(Promise.all([impatient.quota.get(), impatient.quota.get()]));
    expect(err).toMatchObject({ code: 'rate_limited', attempts: 1 });
  });
});

describe.runIf(backend === 'postgres')('a real 503 from the core while PostgreSQL is away', () => {
  let dbProxy: TcpProxy;
  let hp: Harness;
  let sp: Scope;
  let base: string;

  beforeAll(async () => {
    const db = new URL(process.env.TEST_DATABASE_URL!);
    dbProxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 5432) });
    hp = await createHarness({
      connectVia: (u) => {
        const x = new URL(u);
        x.hostname = '127.0.0.1';
        x.port = String(dbProxy.port);
        return x.toString();
      },
      env: { MAILSVC_AUTH_CACHE_TTL_MS: '0' },
    });
    sp = await seedScope(hp);
    await listen(hp.app);
    base = `http://127.0.0.1:${(hp.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await dbProxy.start().catch(() => {});
    await hp.close();
    await dbProxy.close();
  });

  it('retries the 503 service_unavailable until the database is back: one message', async () => {
    const retries: RetryEvent[] = [];
    const client = new Mailsvc({
      apiKey: sp.apiKey,
      baseUrl: base,
      maxRetries: 5,
      onRetry: (e) => {
        retries.push(e);
        if (retries.length === 1) void dbProxy.start();
      },
    });
    await dbProxy.stop();
    const result = await client.emails.send({
      templateId: 'login-code',
      to: 'sdk-db@example.com',
      data: { code: '555555' },
    });
    expect(result.status).toBe('accepted');
    expect(retries[0]!.error).toMatchObject({ code: 'service_unavailable', status: 503 });
    const rows = await hp.runtime.deps.db
      .selectFrom('messages')
      .select('id')
      .where('to_email', '=', 'sdk-db@example.com')
      .execute();
    expect(rows).toEqual([{ id: result.messageId }]);
  });
});
