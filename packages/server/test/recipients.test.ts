// POST /v1/recipients/status, POST /v1/recipients/resubscribe and POST /v1/messages/get: every
// field and every error of their seed rows, the bounce policy and complaints recorded outside a
// delivery claim, and environments kept apart.

import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimMessages, recordAttempt } from '../src/db/repositories/queue.js';
import { markUnsubscribed, recordComplaint, recordHardBounce } from '../src/db/repositories/recipients.js';
import { OUTCOME_POLICY } from '../src/domain/outcome-policy.js';
import { BOUNCE_POLICY } from '../src/domain/recipients/bounce-policy.js';
import { newId } from '../src/ids.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const post = (url: string, apiKey: string, body: unknown) => postJson(h, apiKey, url, body);
const status = (email: string, limit?: number, apiKey = s.apiKey) =>
  post('/v1/recipients/status', apiKey, { email, ...(limit !== undefined && { limit }) });
const send = (to: string, templateId = 'login-code', apiKey = s.apiKey) =>
  post('/v1/send', apiKey, {
    templateId,
    to,
    data: templateId === 'login-code' ? { code: '482913' } : {},
  });
async function sent(to: string, templateId = 'login-code', apiKey = s.apiKey): Promise<string> {
  const res = await send(to, templateId, apiKey);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
const HOUR = 3_600_000;

describe('POST /v1/recipients/status', () => {
  it('answers every field of the seed recipient object for an address never seen: clear and subscribed', async () => {
    const res = await status('Nobody@Example.COM');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      recipient: {
        emailMasked: 'n***@example.com',
        recipientDomain: 'example.com',
        state: 'clear',
        subscription: {
          scope: 'app_notifications',
          status: 'subscribed',
          unsubscribedAt: null,
          resubscribedAt: null,
        },
        delivery: { hardBounceCount: 0, complaintCount: 0, cooldownUntil: null, complainedAt: null },
        canSendNotifications: true,
      },
      messages: [],
    });
  });

  it('lists recent messages newest first, metadata only, 10 by default and limit clamped to 1–50', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(await sent('many@example.com'));
      h.clock.advance(1000);
    }
    const all = (await status('many@example.com')).json().messages;
    expect(all.map((m: { messageId: string }) => m.messageId)).toEqual(ids.slice(2).reverse());
    expect(all[0]).toEqual({
      messageId: ids[11],
      templateId: 'login-code',
      templateVersion: 'v1',
      status: 'queued',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      metadata: {},
    });
    expect(JSON.stringify(all)).not.toMatch(/482913|subject|"data"/i);
    expect((await status('many@example.com', 2)).json().messages).toHaveLength(2);
    expect((await status('many@example.com', 0)).json().messages).toHaveLength(1);
    expect((await status('many@example.com', -5)).json().messages).toHaveLength(1);
    expect((await status('many@example.com', 2.9)).json().messages).toHaveLength(2);
    expect((await status('many@example.com', 1000)).json().messages).toHaveLength(12);
  });

  it('reports an unsubscribe: state unsubscribed, subscription unsubscribed, canSendNotifications false', async () => {
    const now = h.clock.now();
    await markUnsubscribed(
      h.runtime.deps.db,
      { environmentId: s.environmentId, tenantId: s.tenantId, email: 'gone@example.com' },
      now,
    );
    const r = (await status('gone@example.com')).json().recipient;
    expect(r).toMatchObject({
      state: 'unsubscribed',
      subscription: { status: 'unsubscribed', unsubscribedAt: now.toISOString(), resubscribedAt: null },
      canSendNotifications: false,
    });
  });

  it('applies the bounce policy recorded outside a delivery claim: 24 h cooldown, doubled, suppressed at the third bounce in 30 days', async () => {
    const to = 'bouncy@example.com';
    const first = await sent(to);
    const t0 = h.clock.now();
    await recordHardBounce(h.runtime.deps.db, first, t0, BOUNCE_POLICY);
    let r = (await status(to)).json().recipient;
    expect(r).toMatchObject({
      state: 'cooldown',
      delivery: {
        hardBounceCount: 1,
        cooldownUntil: new Date(t0.getTime() + BOUNCE_POLICY.cooldownHours * HOUR).toISOString(),
      },
      canSendNotifications: false,
    });
    expect((await send(to)).json().error.code).toBe('recipient_suppressed');

    h.clock.advance(25 * HOUR);
    const second = await sent(to);
    const t1 = h.clock.now();
    await recordHardBounce(h.runtime.deps.db, second, t1, BOUNCE_POLICY);
    r = (await status(to)).json().recipient;
    expect(r.delivery).toMatchObject({
      hardBounceCount: 2,
      cooldownUntil: new Date(t1.getTime() + 48 * HOUR).toISOString(),
    });

    h.clock.advance(49 * HOUR);
    const third = await sent(to);
    await recordHardBounce(h.runtime.deps.db, third, h.clock.now(), BOUNCE_POLICY);
    r = (await status(to)).json().recipient;
    expect(r).toMatchObject({ state: 'suppressed', delivery: { hardBounceCount: 3 } });
    h.clock.advance(5 * 24 * HOUR); // past the 96 h cooldown, inside the 30-day suppression
    expect((await status(to)).json().recipient.state).toBe('suppressed');
    expect((await send(to)).json().error.code).toBe('recipient_suppressed');
    h.clock.advance(26 * 24 * HOUR);
    expect((await status(to)).json().recipient).toMatchObject({ state: 'clear', canSendNotifications: true });
  });

  it('reports a complaint recorded outside a delivery claim: complained, counted, every template refused', async () => {
    const to = 'angry@example.com';
    const id = await sent(to);
    const now = h.clock.now();
    await recordComplaint(h.runtime.deps.db, id, now);
    const r = (await status(to)).json().recipient;
    expect(r).toMatchObject({
      state: 'complained',
      delivery: { complaintCount: 1, complainedAt: now.toISOString() },
      canSendNotifications: false,
    });
    for (const templateId of ['login-code', 'welcome', 'mention']) {
      expect((await send(to, templateId)).json().error.code, templateId).toBe('recipient_complained');
    }
  });

  it('counts a complaint once per message: a repeated report changes nothing, the timeline shows it', async () => {
    const to = 'twice-angry@example.com';
    const id = await sent(to);
    h.clock.advance(1000);
    expect(await recordComplaint(h.runtime.deps.db, id, h.clock.now())).toBe(true);
    expect(await recordComplaint(h.runtime.deps.db, id, h.clock.now())).toBe(false);
    const r = (await status(to)).json();
    expect(r.recipient.delivery.complaintCount).toBe(1);
    expect(r.messages[0]).toMatchObject({ messageId: id, status: 'complained' });
    const timeline = await post('/v1/messages/get', s.apiKey, { messageId: id });
    expect(timeline.json().events.map((e: { type: string }) => e.type)).toEqual(['accepted', 'complained']);
  });

  it('restarts the streak for a bounce more than 30 days after the previous one (24 h again, no suppression)', async () => {
    const to = 'slow-bouncer@example.com';
    for (let i = 0; i < 3; i++) {
      const id = await sent(to);
      await recordHardBounce(h.runtime.deps.db, id, h.clock.now(), BOUNCE_POLICY);
      h.clock.advance(31 * 24 * HOUR);
    }
    h.clock.advance(-31 * 24 * HOUR);
    const r = (await status(to)).json().recipient;
    expect(r).toMatchObject({
      state: 'cooldown',
      delivery: {
        hardBounceCount: 3,
        cooldownUntil: new Date(h.clock.now().getTime() + 24 * HOUR).toISOString(),
      },
    });
    h.clock.advance(31 * 24 * HOUR);
  });

  it('never shortens an operator’s 365-day suppression with a later bounce: the bounce’s own suppression stands beside it', async () => {
    const to = 'held@example.com';
    for (let i = 0; i < 2; i++) {
      await recordHardBounce(h.runtime.deps.db, await sent(to), h.clock.now(), BOUNCE_POLICY);
      h.clock.advance(3 * 24 * HOUR);
    }
    await h.admin('recipients.suppress', { environment: s.environmentId, email: to, days: 365 });
    const until = (
      await h.runtime.deps.db
        .selectFrom('recipients')
        .select('manual_suppressed_until')
        .where('environment_id', '=', s.environmentId)
        .where('email', '=', to)
        .executeTakeFirstOrThrow()
    ).manual_suppressed_until;
    expect(until).toEqual(new Date(h.clock.now().getTime() + 365 * 24 * HOUR));
    // The third bounce of the streak (reported later, e.g. a DSN for an earlier message).
    const earlier = await h.runtime.deps.db
      .selectFrom('messages')
      .select('id')
      .where('to_email', '=', to)
      .executeTakeFirstOrThrow();
    await recordHardBounce(h.runtime.deps.db, earlier.id, h.clock.now(), BOUNCE_POLICY);
    const after = await h.runtime.deps.db
      .selectFrom('recipients')
      .select(['suppressed_until', 'manual_suppressed_until', 'hard_bounce_count'])
      .where('environment_id', '=', s.environmentId)
      .where('email', '=', to)
      .executeTakeFirstOrThrow();
    expect(after.hard_bounce_count).toBe(3);
    expect(after.manual_suppressed_until).toEqual(until);
    expect(after.suppressed_until).toEqual(new Date(h.clock.now().getTime() + 30 * 24 * HOUR));
  });

  it("keeps environments apart: another environment's recipient state and messages are not shown", async () => {
    const other = await seedScope(h);
    const id = await sent('shared@example.com', 'login-code', other.apiKey);
    await recordComplaint(h.runtime.deps.db, id, h.clock.now());
    const mine = (await status('shared@example.com')).json();
    expect(mine.recipient.state).toBe('clear');
    expect(mine.messages).toEqual([]);
    expect((await status('shared@example.com', undefined, other.apiKey)).json().recipient.state).toBe(
      'complained',
    );
  });

  it('answers 400 invalid_request for a missing or invalid email, with the seed’s wording', async () => {
    for (const body of [
      {},
      { email: 'not an address' },
      { email: 'a@b' },
      { email: 42 },
      { email: 'x@example.com', extra: 1 },
    ]) {
      const res = await post('/v1/recipients/status', s.apiKey, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        message: 'Invalid recipient status request: expected a valid recipient email.',
      });
    }
  });
});

describe('POST /v1/recipients/resubscribe', () => {
  const resubscribe = (email: string, scope: unknown = 'app_notifications', apiKey = s.apiKey) =>
    post('/v1/recipients/resubscribe', apiKey, { email, scope });

  it('clears an unsubscribe for the key’s environment, sets resubscribedAt and writes one audit event', async () => {
    const email = 'back@example.com';
    const other = await seedScope(h);
    for (const scope of [s, other]) {
      await markUnsubscribed(
        h.runtime.deps.db,
        { environmentId: scope.environmentId, tenantId: scope.tenantId, email },
        h.clock.now(),
      );
    }
    h.clock.advance(1000);
    const res = await resubscribe('Back@Example.com');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const r = (await status(email)).json().recipient;
    expect(r).toMatchObject({
      state: 'clear',
      subscription: { status: 'subscribed', resubscribedAt: h.clock.now().toISOString() },
      canSendNotifications: true,
    });
    expect((await send(email, 'mention')).statusCode).toBe(200);
    // The other environment stays unsubscribed.
    expect((await status(email, undefined, other.apiKey)).json().recipient.state).toBe('unsubscribed');
    const audit = await h.runtime.deps.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'recipient.resubscribed')
      .where('tenant_id', '=', s.tenantId)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: `key:${s.keyId}`,
      target_id: `${s.environmentId}:b***@example.com`,
    });
    expect(audit[0]!.details).toMatchObject({
      emailMasked: 'b***@example.com',
      previousState: 'unsubscribed',
      hasChanged: true,
    });
    expect(JSON.stringify(audit[0])).not.toContain('back@example.com');
  });

  it('clears neither a complaint nor a cooldown (DESIGN §5)', async () => {
    const angry = 'still-angry@example.com';
    await markUnsubscribed(
      h.runtime.deps.db,
      { environmentId: s.environmentId, tenantId: s.tenantId, email: angry },
      h.clock.now(),
    );
    await recordComplaint(h.runtime.deps.db, await sent(angry), h.clock.now());
    expect((await resubscribe(angry)).statusCode).toBe(200);
    expect((await status(angry)).json().recipient).toMatchObject({
      state: 'complained',
      subscription: { status: 'subscribed' },
    });
    const bouncy = 'still-bouncing@example.com';
    await recordHardBounce(h.runtime.deps.db, await sent(bouncy), h.clock.now(), BOUNCE_POLICY);
    expect((await resubscribe(bouncy)).statusCode).toBe(200);
    expect((await status(bouncy)).json().recipient.state).toBe('cooldown');
  });

  it('answers ok for an address that was not unsubscribed, changing nothing but the audit trail', async () => {
    expect((await resubscribe('never-left@example.com')).json()).toEqual({ ok: true });
    expect((await status('never-left@example.com')).json().recipient.subscription.resubscribedAt).toBeNull();
  });

  it('answers 400 invalid_request with the seed’s message for a bad email or scope', async () => {
    for (const body of [
      { email: 'x@example.com', scope: 'marketing' },
      { email: 'x@example.com' },
      { scope: 'app_notifications' },
      { email: 'nope', scope: 'app_notifications' },
      { email: 'x@example.com', scope: 'app_notifications', extra: true },
    ]) {
      const res = await post('/v1/recipients/resubscribe', s.apiKey, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        message: 'Invalid resubscribe request: expected a valid email and scope app_notifications.',
      });
    }
  });
});

describe('POST /v1/messages/get', () => {
  const get = (messageId: unknown, apiKey = s.apiKey) => post('/v1/messages/get', apiKey, { messageId });

  it('answers a message’s metadata and its timeline, oldest first, never its content', async () => {
    const id = await sent('timeline@example.com');
    const db = h.runtime.deps.db;
    const claim = async () => {
      const now = h.clock.now();
      // Earlier tests left queued mail: claim everything due (leased a minute) and keep ours.
      const claimed = await claimMessages(db, {
        now,
        limit: 1000,
        lockedUntil: new Date(now.getTime() + 3_600_000),
        claimToken: newId('job'),
      });
      const m = claimed.find((c) => c.id === id);
      expect(m).toBeDefined();
      return m!;
    };
    let m = await claim();
    h.clock.advance(1000);
    await recordAttempt(
      db,
      {
        messageId: id,
        claimToken: m.claimToken!,
        status: 'deferred',
        isAttempt: true,
        nextAttemptAt: h.clock.now(),
        error: { code: 'temporary_failure', message: '451 4.3.0 try later' },
        event: {
          id: newId('evt'),
          details: {
            smtpCode: 451,
            enhancedCode: '4.3.0',
            response: '451 4.3.0 try later',
            attempt: 1,
            nextAttemptAt: h.clock.now().toISOString(),
            secret: 'x',
          },
        },
        bounce: false,
        now: h.clock.now(),
      },
      OUTCOME_POLICY,
    );
    h.clock.advance(1000);
    m = await claim();
    await recordAttempt(
      db,
      {
        messageId: id,
        claimToken: m.claimToken!,
        status: 'sent',
        isAttempt: true,
        nextAttemptAt: null,
        error: null,
        event: { id: newId('evt'), details: { smtpCode: 250, response: '250 2.0.0 Ok', attempt: 2 } },
        bounce: false,
        now: h.clock.now(),
      },
      OUTCOME_POLICY,
    );
    const res = await get(id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.message).toMatchObject({
      messageId: id,
      templateId: 'login-code',
      status: 'sent',
      sentAt: h.clock.now().toISOString(),
      emailMasked: 't***@example.com',
      category: 'security',
      attempts: 2,
    });
    expect(body.events.map((e: { type: string }) => e.type)).toEqual(['accepted', 'deferred', 'sent']);
    expect(body.events[1]).toEqual({
      type: 'deferred',
      at: expect.any(String),
      smtpCode: 451,
      enhancedCode: '4.3.0',
      response: '451 4.3.0 try later',
      attempt: 1,
      nextAttemptAt: expect.any(String),
    });
    expect(JSON.stringify(body)).not.toMatch(/482913|timeline@|"data"|subject|secret/);
  });

  it("answers 404 message_not_found for another environment's message, an unknown id and a malformed one", async () => {
    const other = await seedScope(h);
    const theirs = await sent('theirs@example.com', 'login-code', other.apiKey);
    for (const id of [theirs, newId('msg'), 'msg_nope', 'x'.repeat(64)]) {
      const res = await get(id);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.code).toBe('message_not_found');
    }
    expect((await get(theirs, other.apiKey)).statusCode).toBe(200);
  });

  it('answers 400 invalid_request for a body without a messageId', async () => {
    for (const body of [{}, { messageId: 7 }, { messageId: '' }, { messageId: 'msg_x', more: 1 }]) {
      const res = await post('/v1/messages/get', s.apiKey, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });
});

for (const id of ['getRecipientStatus', 'resubscribeRecipient', 'getMessage'] as const) {
  runCommonRouteTests(id, () => h);
}
