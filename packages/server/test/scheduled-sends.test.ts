// Scheduled sends (DESIGN.md §12): scheduledAt on /v1/send and batch items holds a message as
// `scheduled` until it is due on the movable clock; POST /v1/messages/cancel and /reschedule,
// their limits and their races with a claiming worker (a message is canceled or delivered, never
// both), against a real in-process SMTP server.
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import {
  bearer,
  createHarness,
  type Harness,
  postJson,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { type SmtpSink, startSmtpSink } from '@mailsvc/testkit/smtp-sink';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimMessages } from '../src/db/repositories/queue.js';
import { smtpTransport } from '../src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../src/delivery/worker.js';

let h: Harness;
let s: Scope;
let other: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let transport: ReturnType<typeof smtpTransport>;
const START = '2026-11-22T10:15:30.123Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 10_000 });
  other = await seedScope(h);
  sink = await startSmtpSink();
  transport = smtpTransport({ url: sink.url, poolSize: 2 });
  worker = new DeliveryWorker(h.runtime.deps, transport, {
    concurrency: 8,
    leaseMs: 5 * MINUTE,
    pollMs: HOUR,
  });
});
afterEach(() => h.clock.set(START));
afterAll(async () => {
  await worker.stop();
  await transport.close();
  await sink.close();
  await h.close();
});

let counter = 0;
const address = (tag: string) => `${tag}-${++counter}@example.com`;
const mention = (to: string, extra: Record<string, unknown> = {}) => ({
  templateId: 'mention',
  to,
  data: {},
  ...extra,
});
const login = (to: string, extra: Record<string, unknown> = {}) => ({
  templateId: 'login-code',
  to,
  data: { code: '482913' },
  ...extra,
});

const post = (url: string, body: unknown, apiKey = s.apiKey) => postJson(h, apiKey, url, body);
async function send(body: Record<string, unknown>): Promise<string> {
  const res = await post('/v1/send', body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
const get = async (messageId: string) => (await post('/v1/messages/get', { messageId })).json();
const received = (to: string) => sink.received.filter((r) => r.rcptTo.includes(to));
const used = async () =>
  (await h.request({ method: 'GET', url: '/v1/quota', headers: bearer(s.apiKey) })).json().quota.monthly
    .used as number;

describe('scheduledAt on POST /v1/send', () => {
  it('holds a scheduled message until it is due, then delivers it', async () => {
    const to = address('due');
    const due = at(2 * HOUR);
    const id = await send(mention(to, { scheduledAt: due, metadata: { orderId: 'o1' } }));
    const before = await get(id);
    expect(before.message).toMatchObject({
      status: 'scheduled',
      scheduledAt: due,
      metadata: { orderId: 'o1' },
    });
    // a notification is attempted for its day from when it is due, not from acceptance
    expect(before.message.expiresAt).toBe(at(2 * HOUR + DAY));
    expect(before.events).toEqual([{ type: 'accepted', at: START, scheduledAt: due }]);
    const listed = await post('/v1/messages/list', { status: ['scheduled'] });
    expect(listed.json().messages.map((m: { messageId: string }) => m.messageId)).toContain(id);

    h.clock.advance(2 * HOUR - 1);
    await worker.drain();
    expect(received(to)).toHaveLength(0);
    expect((await get(id)).message.status).toBe('scheduled');

    h.clock.advance(1);
    await worker.drain();
    expect(received(to)).toHaveLength(1);
    expect((await get(id)).message).toMatchObject({ status: 'sent', scheduledAt: due });
  });

  it('refuses a scheduledAt in the past, over 30 days ahead, or without an offset, with the reason at /scheduledAt', async () => {
    const cases: [string, RegExp][] = [
      [at(-1), /in the future/],
      [START, /in the future/],
      [at(30 * DAY + 1), /at most 30 days/],
      ['2026-11-22T12:00:00', /date-time|RFC 3339/],
      ['tomorrow', /date-time|RFC 3339/],
    ];
    for (const [scheduledAt, reason] of cases) {
      const res = await post('/v1/send', mention(address('bad-time'), { scheduledAt }));
      expect(res.statusCode, scheduledAt).toBe(400);
      const { error } = res.json();
      expect(error.code).toBe('invalid_request');
      expect(error.details[0].path).toBe('/scheduledAt');
      expect(error.details[0].message).toMatch(reason);
    }
    // 30 days to the millisecond is allowed
    expect((await post('/v1/send', mention(address('edge'), { scheduledAt: at(30 * DAY) }))).statusCode).toBe(
      200,
    );
  });

  it('refuses a security template scheduled past its 1-hour expiry, and keeps that expiry from acceptance', async () => {
    // at most 59 minutes: one due as it expires would only ever be marked expired
    for (const late of [at(HOUR + 1), at(HOUR), at(59 * MINUTE + 1)]) {
      const res = await post('/v1/send', login(address('late-code'), { scheduledAt: late }));
      expect(res.statusCode, late).toBe(400);
      expect(res.json().error.details[0]).toEqual({
        path: '/scheduledAt',
        message: expect.stringMatching(/59 minutes .*security template.*expires an hour after/),
      });
    }
    const edge = await post('/v1/send', login(address('edge-code'), { scheduledAt: at(59 * MINUTE) }));
    expect(edge.statusCode).toBe(200);
    const id = await send(login(address('soon-code'), { scheduledAt: at(30 * MINUTE) }));
    const { message } = await get(id);
    expect(message).toMatchObject({ status: 'scheduled', scheduledAt: at(30 * MINUTE), expiresAt: at(HOUR) });
  });

  it('answers an Idempotency-Key with the same instant written another way as a replay, another instant with 409', async () => {
    const to = address('idem');
    const headers = {
      ...bearer(s.apiKey),
      'content-type': 'application/json',
      'idempotency-key': `sched-${to}`,
    };
    const req = (scheduledAt: string) =>
      h.request({
        method: 'POST',
        url: '/v1/send',
        headers,
        payload: JSON.stringify(mention(to, { scheduledAt })),
      });
    const first = await req('2026-11-23T09:00:00Z');
    expect(first.json()).toMatchObject({ ok: true, idempotent: false });
    const same = await req('2026-11-23T10:00:00.000+01:00');
    expect(same.json()).toMatchObject({ ok: true, idempotent: true, messageId: first.json().messageId });
    const moved = await req('2026-11-23T09:00:01Z');
    expect(moved.statusCode).toBe(409);
    expect(moved.json().error.code).toBe('idempotency_key_reused');
  });

  it('schedules batch items one by one: a bad scheduledAt refuses only its item, at its path', async () => {
    const good = address('batch-good');
    const res = await post('/v1/send/batch', {
      items: [
        mention(good, { scheduledAt: at(3 * HOUR) }),
        mention(address('batch-bad'), { scheduledAt: at(-MINUTE) }),
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [ok, bad] = res.json().results;
    expect(ok.status).toBe('accepted');
    expect(bad).toMatchObject({
      status: 'refused',
      error: { code: 'invalid_request', details: [{ path: '/items/1/scheduledAt' }] },
    });
    expect((await get(ok.messageId)).message).toMatchObject({
      status: 'scheduled',
      scheduledAt: at(3 * HOUR),
    });
  });
});

describe('the queue metrics', () => {
  const scrape = async () => (await h.request({ method: 'GET', url: '/metrics' })).body;
  const value = (text: string, name: string, label = '') =>
    text
      .split('\n')
      .filter((l) => l.startsWith(name) && l.includes(label))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);

  it('count scheduled messages, and age a due one as waiting until a worker takes it', async () => {
    await worker.drain();
    const before = value(await scrape(), 'mailsvc_queue_messages{', 'status="scheduled"');
    await send(mention(address('gauge'), { scheduledAt: at(MINUTE) }));
    const text = await scrape();
    expect(value(text, 'mailsvc_queue_messages{', 'status="scheduled"')).toBe(before + 1);
    expect(value(text, 'mailsvc_queue_oldest_due_age_seconds ')).toBe(0);
    h.clock.advance(10 * MINUTE);
    expect(value(await scrape(), 'mailsvc_queue_oldest_due_age_seconds ')).toBeGreaterThanOrEqual(9 * 60);
    await worker.drain();
    const after = await scrape();
    expect(value(after, 'mailsvc_queue_oldest_due_age_seconds ')).toBe(0);
    expect(value(after, 'mailsvc_queue_messages{', 'status="scheduled"')).toBe(before);
  });
});

describe('POST /v1/messages/cancel', () => {
  it('cancels a scheduled message: never sent, its template data gone, a canceled event, still counted in the quota', async () => {
    const to = address('cancel-sched');
    const before = await used();
    const id = await send(mention(to, { scheduledAt: at(HOUR) }));
    expect(await used()).toBe(before + 1);
    h.clock.advance(MINUTE);
    const res = await post('/v1/messages/cancel', { messageId: id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      message: expect.objectContaining({
        messageId: id,
        status: 'canceled',
        scheduledAt: at(HOUR),
        updatedAt: at(MINUTE),
      }),
    });
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['data', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ data: null, status: 'canceled' });
    expect((await get(id)).events.map((e: { type: string }) => e.type)).toEqual(['accepted', 'canceled']);
    h.clock.advance(2 * HOUR);
    await worker.drain();
    expect(received(to)).toHaveLength(0);
    expect(await used()).toBe(before + 1);
  });

  it('cancels a queued message no worker has claimed', async () => {
    const to = address('cancel-queued');
    const id = await send(mention(to));
    expect((await post('/v1/messages/cancel', { messageId: id })).json().message.status).toBe('canceled');
    await worker.drain();
    expect(received(to)).toHaveLength(0);
  });

  it('answers 409 message_not_cancelable naming the status once a worker claimed it or it ended', async () => {
    const to = address('claimed');
    const id = await send(mention(to));
    const now = h.clock.now();
    const claimed = await claimMessages(h.runtime.deps.db, {
      now,
      limit: 100,
      lockedUntil: new Date(now.getTime() + MINUTE),
      claimToken: 'test',
    });
    expect(claimed.map((m) => m.id)).toContain(id);
    const sending = await post('/v1/messages/cancel', { messageId: id });
    expect(sending.statusCode).toBe(409);
    expect(sending.json().error).toMatchObject({
      code: 'message_not_cancelable',
      message: expect.stringContaining('sending'),
      details: [{ path: '/messageId', message: 'status is sending' }],
    });
    const canceledTwice = await send(mention(address('twice')));
    await post('/v1/messages/cancel', { messageId: canceledTwice });
    const again = await post('/v1/messages/cancel', { messageId: canceledTwice });
    expect(again.json().error).toMatchObject({
      code: 'message_not_cancelable',
      details: [{ message: 'status is canceled' }],
    });
  });

  it('answers 404 for another environment’s message and for an id that names none', async () => {
    const theirs = (
      await postJson(h, other.apiKey, '/v1/send', mention(address('theirs'), { scheduledAt: at(HOUR) }))
    ).json().messageId;
    for (const messageId of [theirs, 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', 'nope']) {
      const res = await post('/v1/messages/cancel', { messageId });
      expect(res.statusCode, messageId).toBe(404);
      expect(res.json().error.code).toBe('message_not_found');
    }
    expect(
      (await postJson(h, other.apiKey, '/v1/messages/get', { messageId: theirs })).json().message.status,
    ).toBe('scheduled');
  });

  it('settles every race with a claiming worker one way: canceled and never sent, or sent and 409', async () => {
    const tos = Array.from({ length: 24 }, () => address('race'));
    const ids = await Promise.all(tos.map((to) => send(mention(to, { scheduledAt: at(MINUTE) }))));
    h.clock.advance(MINUTE);
    const [answers] = await Promise.all([
      Promise.all(ids.map((messageId) => post('/v1/messages/cancel', { messageId }))),
      worker.drain(),
    ]);
    await worker.drain();
    for (const [i, res] of answers.entries()) {
      const status = (await get(ids[i]!)).message.status;
      if (res.statusCode === 200) {
        expect(status).toBe('canceled');
        expect(received(tos[i]!)).toHaveLength(0);
      } else {
        expect(res.json().error.code).toBe('message_not_cancelable');
        expect(status).toBe('sent');
        expect(received(tos[i]!)).toHaveLength(1);
      }
    }
  });
});

describe('POST /v1/messages/reschedule', () => {
  it('moves a scheduled message: delivered at the new time, not the old, with a rescheduled event', async () => {
    const to = address('moved');
    const id = await send(mention(to, { scheduledAt: at(HOUR) }));
    // events of one millisecond have no order: the reschedule comes a minute later
    h.clock.advance(MINUTE);
    const res = await post('/v1/messages/reschedule', { messageId: id, scheduledAt: at(3 * HOUR) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().message).toMatchObject({ status: 'scheduled', scheduledAt: at(3 * HOUR) });
    const { message, events } = await get(id);
    expect(message.expiresAt).toBe(at(3 * HOUR + DAY));
    expect(events.map((e: { type: string; scheduledAt?: string }) => [e.type, e.scheduledAt])).toEqual([
      ['accepted', at(HOUR)],
      ['rescheduled', at(3 * HOUR)],
    ]);
    h.clock.set(at(2 * HOUR));
    await worker.drain();
    expect(received(to)).toHaveLength(0);
    h.clock.set(at(3 * HOUR));
    await worker.drain();
    expect(received(to)).toHaveLength(1);
  });

  it('settles every race with a claiming worker one way: moved and not sent yet, or sent and 409', async () => {
    const tos = Array.from({ length: 24 }, () => address('move-race'));
    const ids = await Promise.all(tos.map((to) => send(mention(to, { scheduledAt: at(MINUTE) }))));
    h.clock.advance(MINUTE);
    const [answers] = await Promise.all([
      Promise.all(
        ids.map((messageId) => post('/v1/messages/reschedule', { messageId, scheduledAt: at(HOUR) })),
      ),
      worker.drain(),
    ]);
    await worker.drain();
    for (const [i, res] of answers.entries()) {
      const { message } = await get(ids[i]!);
      if (res.statusCode === 200) {
        expect(message).toMatchObject({ status: 'scheduled', scheduledAt: at(HOUR) });
        expect(received(tos[i]!)).toHaveLength(0);
      } else {
        expect(res.json().error.code).toBe('message_not_scheduled');
        expect(message.status).toBe('sent');
        expect(received(tos[i]!)).toHaveLength(1);
      }
    }
    h.clock.set(at(HOUR));
    await worker.drain();
    for (const to of tos) expect(received(to)).toHaveLength(1);
  });

  it('counts its limits from acceptance: 30 days, and a security template’s hour', async () => {
    const id = await send(mention(address('far'), { scheduledAt: at(DAY) }));
    h.clock.advance(DAY - MINUTE);
    const far = await post('/v1/messages/reschedule', { messageId: id, scheduledAt: at(30 * DAY + MINUTE) });
    expect(far.statusCode).toBe(400);
    expect(far.json().error.details).toEqual([
      { path: '/scheduledAt', message: expect.stringMatching(/30 days/) },
    ]);
    h.clock.set(START);
    const code = await send(login(address('code'), { scheduledAt: at(10 * MINUTE) }));
    const late = await post('/v1/messages/reschedule', { messageId: code, scheduledAt: at(HOUR) });
    expect(late.statusCode).toBe(400);
    expect(
      (await post('/v1/messages/reschedule', { messageId: code, scheduledAt: at(59 * MINUTE) })).statusCode,
    ).toBe(200);
  });

  it('answers 409 message_not_scheduled for a message that is not scheduled, and 404 for another environment’s', async () => {
    const queued = await send(mention(address('not-sched')));
    const res = await post('/v1/messages/reschedule', { messageId: queued, scheduledAt: at(HOUR) });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'message_not_scheduled',
      details: [{ message: 'status is queued' }],
    });
    // fell due and was taken by the claim: queued, then sending
    const due = await send(mention(address('fell-due'), { scheduledAt: at(MINUTE) }));
    h.clock.advance(MINUTE);
    await worker.drain();
    const gone = await post('/v1/messages/reschedule', { messageId: due, scheduledAt: at(HOUR) });
    expect(gone.json().error).toMatchObject({
      code: 'message_not_scheduled',
      details: [{ message: 'status is sent' }],
    });
    h.clock.set(START);
    const theirs = (
      await postJson(h, other.apiKey, '/v1/send', mention(address('theirs2'), { scheduledAt: at(HOUR) }))
    ).json().messageId;
    const foreign = await post('/v1/messages/reschedule', { messageId: theirs, scheduledAt: at(2 * HOUR) });
    expect(foreign.statusCode).toBe(404);
    expect(
      (await postJson(h, other.apiKey, '/v1/messages/get', { messageId: theirs })).json().message.scheduledAt,
    ).toBe(at(HOUR));
  });
});

runCommonRouteTests('cancelMessage', () => h);
runCommonRouteTests('rescheduleMessage', () => h);
