// Outbound webhooks end to end (DESIGN.md §11), on both backends: events made by the actions that
// cause them (a real SMTP sink answering 250/451/550, a cancel, the suppressions API, a
// resubscribe), delivered by the webhook runner to a real node:http receiver on 127.0.0.1 and
// verified with the published standardwebhooks package; retries, Retry-After, 410, redirects and
// timeouts on the harness's movable clock.

import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { seedRoomyScope } from '@mailsvc/testkit/hostile-corpus';
import { startSinkWorker } from '@mailsvc/testkit/smtp-sink';
import { startWebhookReceiver, type WebhookReceiver } from '@mailsvc/testkit/webhook-receiver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sweepOnce } from '../src/delivery/retention.js';
import { createUnsubscribeToken } from '../src/domain/consent/unsubscribe-token.js';
import { closeEgressAgents } from '../src/webhooks/egress.js';
import { RETRY_DELAYS_S } from '../src/webhooks/retry-schedule.js';
import { WebhookWorker } from '../src/webhooks/webhook-worker.js';

let h: Harness;
let s: Scope;
let rig: Awaited<ReturnType<typeof startSinkWorker>>;
let receiver: WebhookReceiver;
let webhooks: WebhookWorker;
const START = '2026-11-22T10:15:30.123Z';
const SECOND = 1000;

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  // every test resets the endpoints through the API: a plan without the default 100 requests/s
  s = await seedRoomyScope(h, 'webhooks');
  rig = await startSinkWorker(h.runtime.deps);
  receiver = await startWebhookReceiver();
  webhooks = new WebhookWorker(h.runtime.deps, {
    concurrency: 8,
    perEndpoint: 8,
    leaseMs: 300_000,
    pollMs: 3_600_000,
    timeoutMs: 500,
    allowPrivate: true,
  });
});
afterAll(async () => {
  await webhooks.stop();
  await rig.close();
  await receiver.close();
  closeEgressAgents();
  await h.close();
});

const call = (path: string, body: unknown, apiKey = s.apiKey) => postJson(h, apiKey, path, body);

async function ok(path: string, body: unknown) {
  const res = await call(path, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

let endpoint: { id: string; secret: string };
let counter = 0;
const address = (tag: string) => `${tag}-${++counter}@example.com`;

describe('webhooks', () => {
  beforeEach(async () => {
    h.clock.set(START);
    receiver.received.length = 0;
    for (const e of (await ok('/v1/webhooks/list', {})).endpoints)
      await ok('/v1/webhooks/delete', { endpointId: e.endpointId });
    const created = await ok('/v1/webhooks/create', { url: receiver.url, description: 'tests' });
    endpoint = { id: created.endpoint.endpointId, secret: created.secret };
  });
  afterEach(async () => {
    // every delivery made by a test ends in it
    await webhooks.drain();
  });

  async function send(to: string, extra: Record<string, unknown> = {}): Promise<string> {
    const body = {
      templateId: 'login-code',
      to,
      data: { code: '482913' },
      metadata: { userId: 'u_42' },
      ...extra,
    };
    return (await ok('/v1/send', body)).messageId;
  }

  /** A runner whose cap of 2 per endpoint is what the runner and fairness tests are about. */
  const cappedWorker = () =>
    new WebhookWorker(h.runtime.deps, {
      concurrency: 8,
      perEndpoint: 2,
      leaseMs: 300_000,
      pollMs: 3_600_000,
      timeoutMs: 2000,
      allowPrivate: true,
    });

  const advance = (ms: number) => h.clock.set(new Date(h.clock.now().getTime() + ms).toISOString());

  /** Delivers the mail due, then the webhooks due. */
  async function deliver() {
    await rig.worker.drain();
    advance(10);
    await webhooks.drain();
  }

  describe('endpoints', () => {
    it('creates an endpoint with a whsec_ secret shown once, lists and gets it without the secret, updates and deletes it', async () => {
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const got = await ok('/v1/webhooks/get', { endpointId: endpoint.id });
      expect(got.endpoint).toMatchObject({
        url: receiver.url,
        events: null,
        enabled: true,
        disabledReason: null,
      });
      expect(JSON.stringify(got)).not.toContain(endpoint.secret);
      const updated = await ok('/v1/webhooks/update', {
        endpointId: endpoint.id,
        events: ['message.bounced'],
        enabled: false,
      });
      expect(updated.endpoint).toMatchObject({
        events: ['message.bounced'],
        enabled: false,
        disabledReason: 'manual',
      });
      expect((await ok('/v1/webhooks/list', {})).endpoints).toHaveLength(1);
      await ok('/v1/webhooks/delete', { endpointId: endpoint.id });
      const gone = await call('/v1/webhooks/get', { endpointId: endpoint.id });
      expect(gone.statusCode).toBe(404);
      expect(gone.json().error.code).toBe('webhook_endpoint_not_found');
    });

    it('refuses a 21st endpoint with 409 webhook_endpoint_limit', async () => {
      for (let i = 0; i < 19; i++) await ok('/v1/webhooks/create', { url: `${receiver.url}/${i}` });
      const res = await call('/v1/webhooks/create', { url: `${receiver.url}/last` });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('webhook_endpoint_limit');
    });

    it("does not show or change another environment's endpoint", async () => {
      const other = await seedScope(h);
      const res = await call('/v1/webhooks/get', { endpointId: endpoint.id }, other.apiKey);
      expect(res.statusCode).toBe(404);
      const del = await call('/v1/webhooks/delete', { endpointId: endpoint.id }, other.apiKey);
      expect(del.statusCode).toBe(404);
    });
  });

  describe('message events', () => {
    it('lists the attempts of one message’s events (deliveries/list {messageId}), no other message’s', async () => {
      const one = await send(address('ok'));
      const other = await send(address('ok'));
      await deliver();
      const mine = (await ok('/v1/webhooks/deliveries/list', { messageId: one })).attempts as {
        eventId: string;
      }[];
      const theirs = (await ok('/v1/webhooks/deliveries/list', { messageId: other })).attempts as {
        eventId: string;
      }[];
      expect(mine).toHaveLength(1);
      expect(theirs).toHaveLength(1);
      expect(mine[0]!.eventId).not.toBe(theirs[0]!.eventId);
      const none = await ok('/v1/webhooks/deliveries/list', { messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' });
      expect(none.attempts).toEqual([]);
    });

    it('sends message.sent signed to the Standard Webhooks spec, with ids, template, recipient and metadata but no template data', async () => {
      const id = await send(address('ok'));
      await deliver();
      expect(receiver.received).toHaveLength(1);
      const r = receiver.received[0]!;
      const event = receiver.verify(r, endpoint.secret);
      expect(event.type).toBe('message.sent');
      expect(event.data).toMatchObject({
        messageId: id,
        templateId: 'login-code',
        templateVersion: 'v1',
        status: 'sent',
        metadata: { userId: 'u_42' },
        smtpCode: 250,
      });
      expect(event.data.to).toMatch(/^ok-\d+@example\.com$/);
      expect(event.data.toMasked).toBe(`o***@example.com`);
      expect(r.body).not.toContain('482913');
      // the webhook-id is the timeline event's id
      const timeline = await h.runtime.deps.db
        .selectFrom('message_events')
        .select('id')
        .where('message_id', '=', id)
        .where('type', '=', 'sent')
        .executeTakeFirstOrThrow();
      expect(r.headers['webhook-id']).toBe(timeline.id);
      expect(Number(r.headers['webhook-timestamp'])).toBe(Math.floor(h.clock.now().getTime() / 1000));
    });

    it('sends message.delivery_delayed for a 451 with the attempt and the next attempt, then message.sent', async () => {
      const to = address('soft');
      rig.sink.script(to, 'soft', 1);
      await send(to);
      await deliver();
      advance(10 * 60 * SECOND);
      await deliver();
      const [delayed, sent] = receiver.received.map((r) => receiver.verify(r, endpoint.secret));
      expect(delayed).toMatchObject({
        type: 'message.delivery_delayed',
        data: { status: 'deferred', attempt: 1, smtpCode: 451 },
      });
      expect(typeof delayed!.data.nextAttemptAt).toBe('string');
      expect(sent!.type).toBe('message.sent');
    });

    it('sends message.bounced (hard, with the SMTP code and enhanced status) for a 550 and message.failed for a policy refusal', async () => {
      const unknown = address('unknown');
      rig.sink.script(unknown, 'unknown-user');
      const policy = address('policy');
      rig.sink.script(policy, 'policy');
      await send(unknown);
      await send(policy);
      await deliver();
      const events = receiver.received.map((r) => receiver.verify(r, endpoint.secret));
      const bounced = events.find((e) => e.type === 'message.bounced')!;
      expect(bounced.data).toMatchObject({
        bounceType: 'hard',
        smtpCode: 550,
        enhancedCode: '5.1.1',
        reason: 'user_unknown',
      });
      expect(bounced.data.diagnostic).toContain('5.1.1');
      expect(events.find((e) => e.type === 'message.failed')?.data).toMatchObject({ status: 'failed' });
      // the bounce also begins the recipient's hold (a cooldown: the suppressions list's hard_bounce
      // entry), reported once; the policy refusal does not touch the recipient
      expect(events.map((e) => e.type).sort()).toEqual([
        'message.bounced',
        'message.failed',
        'recipient.suppressed',
      ]);
      const hold = events.find((e) => e.type === 'recipient.suppressed')!;
      expect(hold.data).toMatchObject({ email: unknown, reason: 'hard_bounce' });
      expect(Date.parse(String(hold.data.until))).toBeGreaterThan(h.clock.now().getTime());
    });

    it('sends message.canceled for a canceled scheduled send, and only the types an endpoint takes', async () => {
      await ok('/v1/webhooks/update', { endpointId: endpoint.id, events: ['message.canceled'] });
      const id = await send(address('later'), {
        scheduledAt: new Date(h.clock.now().getTime() + 1_800_000).toISOString(),
      });
      await ok('/v1/messages/cancel', { messageId: id });
      await send(address('ok'));
      await deliver();
      expect(receiver.received.map((r) => receiver.verify(r, endpoint.secret).type)).toEqual([
        'message.canceled',
      ]);
    });

    it('delivers the events of one message in order: a later event waits while an earlier one is retried', async () => {
      const to = address('soft');
      rig.sink.script(to, 'soft', 1);
      await send(to);
      receiver.answer({ status: 500 });
      await deliver(); // deferred: its delivery fails, retried in ~5 s
      expect(receiver.received).toHaveLength(1);
      advance(60 * SECOND); // the mail retry is due: the message is sent
      await rig.worker.drain();
      receiver.answer({ status: 500 });
      // the deferred event's retry is due and fails again; the sent event must not overtake it
      await webhooks.drain();
      expect(receiver.events().map((e) => e.type)).toEqual([
        'message.delivery_delayed',
        'message.delivery_delayed',
      ]);
      advance(10 * 60 * SECOND);
      await webhooks.drain();
      expect(receiver.events().map((e) => e.type)).toEqual([
        'message.delivery_delayed',
        'message.delivery_delayed',
        'message.delivery_delayed',
        'message.sent',
      ]);
    });
  });

  describe('recipient events', () => {
    it('sends recipient.suppressed and recipient.unsuppressed for the suppressions API', async () => {
      const email = address('manual');
      await ok('/v1/suppressions/add', { email, note: 'asked by phone' });
      await ok('/v1/suppressions/remove', { email });
      await webhooks.drain();
      const events = receiver.received.map((r) => receiver.verify(r, endpoint.secret));
      expect(events.map((e) => [e.type, e.data.reason])).toEqual([
        ['recipient.suppressed', 'manual'],
        ['recipient.unsuppressed', 'manual'],
      ]);
      expect(events[0]!.data).toMatchObject({ email, emailMasked: 'm***@example.com', until: null });
    });

    it('reports the lift of a hard-bounce hold, and not the end of a manual suppression whose time had passed', async () => {
      const email = address('expiring');
      await ok('/v1/suppressions/add', {
        email,
        until: new Date(h.clock.now().getTime() + 60_000).toISOString(),
      });
      advance(120_000);
      await ok('/v1/suppressions/add', { email: address('other') });
      const res = await call('/v1/suppressions/remove', { email });
      expect(res.statusCode).toBe(404); // nothing standing to remove through the API
      await h.admin('recipients.unsuppress', { environment: s.environmentId, email });
      await webhooks.drain();
      const types = receiver.received
        .map((r) => receiver.verify(r, endpoint.secret))
        .filter((e) => e.data.email === email)
        .map((e) => e.type);
      expect(types).toEqual(['recipient.suppressed']);
    });

    it('sends recipient.unsubscribed from the unsubscribe page and recipient.resubscribed for the opt-in', async () => {
      const email = address('optout');
      const token = createUnsubscribeToken(h.runtime.deps.keys.unsubscribe, {
        environmentId: s.environmentId,
        email,
        scope: 'app_notifications',
      });
      const page = await h.request({
        method: 'POST',
        url: `/u/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
      expect(page.statusCode).toBe(200);
      await ok('/v1/recipients/resubscribe', { email, scope: 'app_notifications' });
      await webhooks.drain();
      expect(
        receiver.received.map((r) => receiver.verify(r, endpoint.secret)).map((e) => [e.type, e.data.email]),
      ).toEqual([
        ['recipient.unsubscribed', email],
        ['recipient.resubscribed', email],
      ]);
    });
  });

  describe('retries', () => {
    it('retries a failure on the schedule, honours a longer Retry-After, and keeps each attempt with its status, body and next attempt', async () => {
      receiver.answer({ status: 500, body: 'boom' }, { status: 503, headers: { 'retry-after': '3000' } });
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      const list = async () =>
        (await ok('/v1/webhooks/deliveries/list', { endpointId: endpoint.id })).attempts;
      const [first] = await list();
      expect(first).toMatchObject({
        attempt: 1,
        outcome: 'failed',
        statusCode: 500,
        responseBody: 'boom',
        eventType: 'webhook.test',
      });
      const wait = Date.parse(first.nextAttemptAt) - h.clock.now().getTime();
      expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_S[0] * 900);
      expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_S[0] * 1100);
      advance(4 * SECOND);
      expect(await webhooks.drain()).toBe(0); // not due yet
      advance(2 * SECOND);
      await webhooks.drain();
      const [second] = await list();
      expect(second).toMatchObject({ attempt: 2, statusCode: 503 });
      // the schedule's next wait is 5 minutes; the receiver asked for 50
      expect(Date.parse(second.nextAttemptAt) - h.clock.now().getTime()).toBe(3_000_000);
      advance(3_000 * SECOND);
      await webhooks.drain();
      const attempts = await list();
      expect(attempts.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome])).toEqual([
        [3, 'succeeded'],
        [2, 'failed'],
        [1, 'failed'],
      ]);
      // the same webhook-id on every attempt
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    });

    it('treats a redirect as a failure and does not follow it; a timeout as a failure', async () => {
      receiver.answer(
        { status: 302, headers: { location: `${receiver.url}/elsewhere` } },
        { status: 200, hang: true },
      );
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      advance(6 * SECOND);
      await webhooks.drain();
      expect(receiver.received.map((r) => r.path)).toEqual(['/hooks', '/hooks']);
      const attempts = (await ok('/v1/webhooks/deliveries/list', { endpointId: endpoint.id })).attempts;
      expect(attempts[1]).toMatchObject({ outcome: 'failed', statusCode: 302 });
      expect(attempts[1].error).toContain('redirect');
      expect(attempts[0]).toMatchObject({ outcome: 'failed', statusCode: null });
      expect(attempts[0].error).toMatch(/^timeout/);
    });

    it('disables an endpoint that answers 410 at once, audited, mailed to the team, and attempts nothing more until it is enabled', async () => {
      const owner = `webhook-owner-${Date.now()}@example.com`;
      await h.admin('members.invite', { tenant: s.tenantId, email: owner, role: 'owner' });
      // an admin of another project only is not told about this project's endpoint
      const elsewhere = `webhook-elsewhere-${Date.now()}@example.com`;
      const { project } = await h.admin('projects.create', { tenant: s.tenantId, name: 'Elsewhere' });
      await h.admin('members.invite', { tenant: s.tenantId, email: elsewhere, role: 'admin' });
      await h.runtime.deps.db
        .updateTable('members')
        .set({ project_ids: [project.id] })
        .where('email', '=', elsewhere)
        .execute();
      receiver.answer({ status: 410 });
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      expect((await ok('/v1/webhooks/get', { endpointId: endpoint.id })).endpoint).toMatchObject({
        enabled: false,
        disabledReason: 'gone',
      });
      const audit = await ok('/v1/audit/list', { action: ['webhook_endpoint.disabled'] });
      expect(audit.events[0]).toMatchObject({ targetId: endpoint.id, details: { reason: 'gone' } });
      // the tenant's owner is told, through the system environment (catalogue: action-required)
      const mailed = async () =>
        h.runtime.deps.db
          .selectFrom('messages')
          .select(['data'])
          .where('to_email', '=', owner)
          .where('template_id', '=', 'action-required')
          .execute();
      for (let i = 0; i < 100 && (await mailed()).length === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      const [notice] = await mailed();
      expect(notice?.data).toMatchObject({
        subject: 'A webhook endpoint was disabled',
        issueDetails: { problem: 'answered 410 Gone' },
        actionButton: { url: expect.stringMatching(/\/console\/webhooks$/) },
      });
      const toElsewhere = await h.runtime.deps.db
        .selectFrom('messages')
        .select('id')
        .where('to_email', '=', elsewhere)
        .where('template_id', '=', 'action-required')
        .execute();
      expect(toElsewhere).toEqual([]);
      await send(address('ok'));
      await deliver();
      expect(receiver.received).toHaveLength(1);
      await ok('/v1/webhooks/update', { endpointId: endpoint.id, enabled: true });
      await send(address('ok'));
      await deliver();
      expect(receiver.events().map((e) => e.type)).toEqual(['webhook.test', 'message.sent']);
    });

    it("clears an endpoint's failing streak when a success is recorded with failures", async () => {
      receiver.answer({ status: 500 });
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      expect(await webhooks.runOnce()).toBe(2); // one answered 500, one 204; recorded in one call
      const row = await h.runtime.deps.db
        .selectFrom('webhook_endpoints')
        .select('failing_since')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(row.failing_since).toBeNull();
      advance(10 * SECOND); // the failure's retry (5 s) succeeds in afterEach's drain
    });

    it('disables an endpoint whose deliveries have all failed for 5 days', async () => {
      // the first event fails, then (5 days on) its retry and a second event both fail
      receiver.answer({ status: 500 }, { status: 500 }, { status: 500 });
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      advance(5 * 86_400 * SECOND);
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.runOnce();
      const got = (await ok('/v1/webhooks/get', { endpointId: endpoint.id })).endpoint;
      expect(got.disabledReason).toBe('failing');
      // changed, and audited, when the attempt that disabled it was made
      expect(got.updatedAt).toBe(h.clock.now().toISOString());
      const audit = await h.runtime.deps.db
        .selectFrom('audit_events')
        .select('created_at')
        .where('action', '=', 'webhook_endpoint.disabled')
        .where('target_id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(audit.created_at.toISOString()).toBe(h.clock.now().toISOString());
    });
  });

  describe('the runner', () => {
    it('keeps claiming a backlog held back by the per-endpoint cap, without waiting for the poll', async () => {
      const capped = cappedWorker();
      for (let i = 0; i < 12; i++) await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      capped.start();
      try {
        const deadline = Date.now() + 5000;
        while (receiver.received.length < 12 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 10));
      } finally {
        await capped.stop();
      }
      expect(receiver.received).toHaveLength(12);
      // every attempt recorded (with a later claim, or at the stop), none left in flight
      const rows = await h.runtime.deps.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      expect(rows).toHaveLength(12);
      expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    });

    it('keeps an attempt whose record failed in an outage and records it with the next call, without sending the event again', async () => {
      let failures = 1;
      const flaky = h.runtime.deps.db.withPlugin({
        transformQuery(args) {
          // the call that carries an attempt's record, as node-postgres fails when the server goes
          if (failures > 0 && JSON.stringify(args.node).includes('delivery_id')) {
            failures--;
            throw new Error('the database went away: Connection terminated unexpectedly');
          }
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      const worker = new WebhookWorker(
        { ...h.runtime.deps, db: flaky },
        {
          concurrency: 8,
          perEndpoint: 8,
          leaseMs: 300_000,
          pollMs: 3_600_000,
          timeoutMs: 2000,
          allowPrivate: true,
        },
      );
      const { eventId } = await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await expect(worker.runOnce()).rejects.toThrow('the database went away');
      expect(receiver.received).toHaveLength(1);
      expect(await worker.runOnce()).toBe(0); // records the attempt kept; nothing new to claim
      expect(receiver.received).toHaveLength(1);
      const row = await h.runtime.deps.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('event_id', '=', eventId)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'succeeded', attempts: 1 });
    });
  });

  describe('mail first', () => {
    const besideMail = (isMailBacklogged: () => boolean, mailFirstMs: number, pollMs = 20) =>
      new WebhookWorker(h.runtime.deps, {
        concurrency: 8,
        perEndpoint: 8,
        leaseMs: 300_000,
        pollMs,
        timeoutMs: 2000,
        allowPrivate: true,
        isMailBacklogged,
        mailFirstMs,
      });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    async function receivedWithin(n: number, ms: number) {
      const deadline = Date.now() + ms;
      while (receiver.received.length < n && Date.now() < deadline) await sleep(5);
      return receiver.received.length;
    }

    it('starts no delivery while mail has a backlog, and delivers once the backlog is gone, without waiting for the poll', async () => {
      let backlogged = true;
      const worker = besideMail(() => backlogged, 60_000, 3_600_000);
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      worker.start();
      try {
        await sleep(200); // ten polls
        expect(receiver.received).toHaveLength(0);
        backlogged = false;
        expect(await receivedWithin(1, 2000)).toBe(1);
      } finally {
        await worker.stop();
      }
    });

    it('holds deliveries back for mailFirstMs of a backlog at most, then at most half the time', async () => {
      const worker = besideMail(() => true, 600);
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      const started = Date.now();
      worker.start();
      try {
        expect(await receivedWithin(1, 3000)).toBe(1);
        expect(Date.now() - started).toBeGreaterThanOrEqual(600);
        // the backlog goes on, the budget is spent: the next event is not held back another 600 ms
        const queued = Date.now();
        await ok('/v1/webhooks/test', { endpointId: endpoint.id });
        expect(await receivedWithin(2, 3000)).toBe(2);
        expect(Date.now() - queued).toBeLessThan(450); // a second pause would take 600 ms
      } finally {
        await worker.stop();
      }
    });
  });

  describe('fairness', () => {
    it("serves every endpoint from its own due deliveries: one endpoint's backlog does not hold back another's event", async () => {
      const capped = cappedWorker();
      for (let i = 0; i < 40; i++) await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      advance(1000);
      const other = await ok('/v1/webhooks/create', { url: `${receiver.url}/other` });
      const { eventId } = await ok('/v1/webhooks/test', { endpointId: other.endpoint.endpointId });
      advance(1000);
      expect(await capped.runOnce()).toBe(3); // 2 of the backlog (its cap) and the other endpoint's
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toContain(eventId);
    });
  });

  describe('rate cap', () => {
    it('starts at most rateLimitPerSecond deliveries to an endpoint a second, counted across claims', async () => {
      const updated = await ok('/v1/webhooks/update', { endpointId: endpoint.id, rateLimitPerSecond: 2 });
      expect(updated.endpoint.rateLimitPerSecond).toBe(2);
      for (let i = 0; i < 5; i++) await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      advance(10);
      expect(await webhooks.runOnce()).toBe(2); // a full second's worth
      expect(await webhooks.runOnce()).toBe(0); // the same moment: none left
      advance(500);
      expect(await webhooks.runOnce()).toBe(1); // half a second: one
      advance(1000);
      expect(await webhooks.runOnce()).toBe(2); // the rest (a bucket holds one second's worth)
      expect(receiver.received).toHaveLength(5);
      // lifted: the next claim takes what the per-endpoint concurrency allows
      await ok('/v1/webhooks/update', { endpointId: endpoint.id, rateLimitPerSecond: null });
      for (let i = 0; i < 5; i++) await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      advance(10);
      expect(await webhooks.runOnce()).toBe(5);
    });
  });

  describe('retention', () => {
    it('deletes attempts, finished deliveries and their events after 30 days, and keeps what still waits', async () => {
      const { eventId: delivered } = await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      receiver.answer({ status: 500 });
      const { eventId: waiting } = await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain(); // failed once: pending, retried in ~5 s
      const db = h.runtime.deps.db;
      const rowsOf = async (eventId: string) => ({
        attempts: (
          await db.selectFrom('webhook_attempts').select('id').where('event_id', '=', eventId).execute()
        ).length,
        deliveries: (
          await db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).execute()
        ).length,
        events: (await db.selectFrom('webhook_events').select('id').where('id', '=', eventId).execute())
          .length,
      });
      expect(await rowsOf(delivered)).toEqual({ attempts: 1, deliveries: 1, events: 1 });
      advance(31 * 86_400 * SECOND);
      expect((await sweepOnce(h.runtime.deps)).webhookRows).toBeGreaterThanOrEqual(4);
      expect(await rowsOf(delivered)).toEqual({ attempts: 0, deliveries: 0, events: 0 });
      // its attempt is past 30 days; the delivery that still waits and its event stay
      expect(await rowsOf(waiting)).toEqual({ attempts: 0, deliveries: 1, events: 1 });
    });
  });

  describe('signing secrets', () => {
    it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
      const rotated = await ok('/v1/webhooks/rotate-secret', { endpointId: endpoint.id });
      expect(rotated.secret).not.toBe(endpoint.secret);
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      const during = receiver.received[0]!;
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(receiver.verify(during, endpoint.secret).type).toBe('webhook.test');
      expect(receiver.verify(during, rotated.secret).type).toBe('webhook.test');
      advance(24 * 3_600 * SECOND + SECOND);
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      const after = receiver.received[1]!;
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(() => receiver.verify(after, endpoint.secret)).toThrow();
      expect(receiver.verify(after, rotated.secret).type).toBe('webhook.test');
    });
  });

  describe('the outbox', () => {
    const gaugeOfStall = async () => {
      const res = await h.request({ method: 'GET', url: '/metrics' });
      const line = res.body.split('\n').find((l) => l.startsWith('mailsvc_webhook_oldest_due_age_seconds '));
      return Number(line?.split(' ')[1]);
    };

    it('notes a message event in the transaction of its record and makes it a webhook event at the runner’s next claim, for the endpoints there when it occurred', async () => {
      const db = h.runtime.deps.db;
      const id = await send(address('outbox'));
      await rig.worker.drain();
      const sent = await db
        .selectFrom('message_events')
        .select('id')
        .where('message_id', '=', id)
        .where('type', '=', 'sent')
        .executeTakeFirstOrThrow();
      const noted = () =>
        db
          .selectFrom('webhook_fanout')
          .select('message_event_id')
          .where('message_event_id', '=', sent.id)
          .execute();
      const made = () => db.selectFrom('webhook_events').select('id').where('id', '=', sent.id).execute();
      expect(await noted()).toHaveLength(1);
      expect(await made()).toHaveLength(0);
      // a runner that has not claimed for a minute shows in the stalled-runner gauge
      advance(60 * SECOND);
      expect(await gaugeOfStall()).toBeGreaterThanOrEqual(60);
      const late = await ok('/v1/webhooks/create', { url: `${receiver.url}/late` });
      await webhooks.drain();
      expect(await noted()).toHaveLength(0);
      expect(await made()).toHaveLength(1);
      // to the endpoint that was there, not to the one made after the event
      expect(receiver.received.map((r) => [r.path, r.headers['webhook-id']])).toEqual([['/hooks', sent.id]]);
      expect(receiver.verify(receiver.received[0]!, endpoint.secret).data).toMatchObject({
        messageId: id,
        metadata: { userId: 'u_42' },
      });
      expect(await gaugeOfStall()).toBe(0);
      await ok('/v1/webhooks/delete', { endpointId: late.endpoint.endpointId });
    });

    it('queues an event that occurred while its endpoint was enabled, disabled before the fan-out, to wait for it', async () => {
      const id = await send(address('outbox-disabled'));
      await rig.worker.drain();
      advance(SECOND);
      await ok('/v1/webhooks/update', { endpointId: endpoint.id, enabled: false });
      // one that occurs while it is disabled is not queued
      advance(SECOND);
      await ok('/v1/messages/cancel', {
        messageId: await send(address('outbox-while-off'), {
          scheduledAt: new Date(h.clock.now().getTime() + 600_000).toISOString(),
        }),
      });
      await webhooks.drain();
      expect(receiver.received).toHaveLength(0);
      await ok('/v1/webhooks/update', { endpointId: endpoint.id, enabled: true });
      await webhooks.drain();
      expect(receiver.received.map((r) => receiver.verify(r, endpoint.secret).data.messageId)).toEqual([id]);
    });

    it('removes a note whose event is gone (its message deleted by the retention sweep), and still fans out the rest', async () => {
      const db = h.runtime.deps.db;
      await db
        .insertInto('webhook_fanout')
        .values({ message_event_id: 'evt_01JD0000000000000000000000' })
        .execute();
      const id = await send(address('outbox-gone'));
      await rig.worker.drain();
      await webhooks.drain();
      expect(await db.selectFrom('webhook_fanout').select('message_event_id').execute()).toEqual([]);
      expect(receiver.received.map((r) => receiver.verify(r, endpoint.secret).data.messageId)).toEqual([id]);
    });

    it('notes nothing for a tenant without an enabled endpoint', async () => {
      const db = h.runtime.deps.db;
      await ok('/v1/webhooks/update', { endpointId: endpoint.id, enabled: false });
      const id = await send(address('outbox-off'));
      await rig.worker.drain();
      const ids = (
        await db.selectFrom('message_events').select('id').where('message_id', '=', id).execute()
      ).map((e) => e.id);
      expect(
        await db
          .selectFrom('webhook_fanout')
          .select('message_event_id')
          .where('message_event_id', 'in', ids)
          .execute(),
      ).toEqual([]);
    });
  });

  describe('replay', () => {
    it('replays one event with the same webhook-id, and every failed event of an endpoint in a range', async () => {
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      const id = String(receiver.received[0]!.headers['webhook-id']);
      expect((await ok('/v1/webhooks/deliveries/replay', { eventId: id })).queued).toBe(1);
      await webhooks.drain();
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
      const missing = await call('/v1/webhooks/deliveries/replay', {
        eventId: 'evt_01JD0000000000000000000000',
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('webhook_event_not_found');
      expect((await ok('/v1/webhooks/deliveries/replay', { endpointId: endpoint.id })).queued).toBe(0);
    });

    it('never replays an event within an hour of what the retention sweep deletes, so no delivery outlives its event', async () => {
      await ok('/v1/webhooks/test', { endpointId: endpoint.id });
      await webhooks.drain();
      const id = String(receiver.received[0]!.headers['webhook-id']);
      advance(30 * 86_400 * SECOND - 2 * 3_600 * SECOND);
      expect((await ok('/v1/webhooks/deliveries/replay', { eventId: id })).queued).toBe(1);
      await webhooks.drain();
      expect(receiver.received).toHaveLength(2);
      advance(90 * 60 * SECOND);
      expect((await ok('/v1/webhooks/deliveries/replay', { eventId: id })).queued).toBe(0);
    });
  });
});

runCommonRouteTests('createWebhook', () => h);
runCommonRouteTests('listWebhooks', () => h);
runCommonRouteTests('getWebhook', () => h);
runCommonRouteTests('updateWebhook', () => h);
runCommonRouteTests('deleteWebhook', () => h);
runCommonRouteTests('rotateWebhookSecret', () => h);
runCommonRouteTests('testWebhook', () => h);
runCommonRouteTests('listWebhookDeliveries', () => h);
runCommonRouteTests('replayWebhookDeliveries', () => h);
