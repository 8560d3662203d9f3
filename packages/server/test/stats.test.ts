// POST /v1/stats/daily (the console's overview): the environment's messages per UTC day of their
// acceptance, by what became of them, recipients' unsubscribes per day, every day of the window
// present, the window's bounce and complaint rates beside the providers' thresholds; another
// environment's mail never counted.
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markUnsubscribed } from '../src/db/repositories/recipients.js';

let h: Harness;
let s: Scope;
let other: Scope;
const START = '2026-11-22T10:15:30.123Z';

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 10_000 });
  other = await seedScope(h, { monthlyLimit: 10_000 });
});
afterAll(() => h.close());

let n = 0;
async function sendAt(at: string, status: string, scope = s): Promise<void> {
  h.clock.set(at);
  const res = await postJson(h, scope.apiKey, '/v1/send', {
    templateId: 'welcome',
    to: `stats-${++n}@example.com`,
    data: {},
  });
  expect(res.statusCode, res.body).toBe(200);
  await h.runtime.deps.db
    .updateTable('messages')
    .set({ status: status as never })
    .where('id', '=', res.json().messageId)
    .execute();
}

describe('POST /v1/stats/daily', () => {
  it('counts each day’s messages by outcome and its unsubscribes, with the window’s rates', async () => {
    await sendAt('2026-11-20T23:59:59.000Z', 'sent');
    await sendAt('2026-11-21T00:00:00.000Z', 'delivered');
    await sendAt('2026-11-21T08:00:00.000Z', 'bounced');
    await sendAt('2026-11-21T09:00:00.000Z', 'complained');
    await sendAt('2026-11-22T01:00:00.000Z', 'failed');
    await sendAt('2026-11-22T02:00:00.000Z', 'queued');
    await sendAt('2026-11-22T03:00:00.000Z', 'sent', other);
    await sendAt('2026-11-10T03:00:00.000Z', 'sent');
    await markUnsubscribed(
      h.runtime.deps.db,
      { environmentId: s.environmentId, tenantId: s.tenantId, email: 'gone@example.com' },
      new Date('2026-11-21T12:00:00Z'),
    );
    h.clock.set(START);
    const res = await postJson(h, s.apiKey, '/v1/stats/daily', { days: 3 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      days: [
        {
          date: '2026-11-20',
          accepted: 1,
          delivered: 1,
          bounced: 0,
          complained: 0,
          failed: 0,
          unsubscribed: 0,
        },
        {
          date: '2026-11-21',
          accepted: 3,
          delivered: 1,
          bounced: 1,
          complained: 1,
          failed: 0,
          unsubscribed: 1,
        },
        {
          date: '2026-11-22',
          accepted: 2,
          delivered: 0,
          bounced: 0,
          complained: 0,
          failed: 1,
          unsubscribed: 0,
        },
      ],
      rates: { bounceRate: 0.333333, complaintRate: 0.5, bounceRateLimit: 0.05, complaintRateLimit: 0.003 },
    });
  });

  it('answers 30 days ending today by default, and null rates without deliveries', async () => {
    const fresh = await seedScope(h);
    h.clock.set(START);
    const res = await postJson(h, fresh.apiKey, '/v1/stats/daily', {});
    const body = res.json();
    expect(body.days).toHaveLength(30);
    expect([body.days[0].date, body.days[29].date]).toEqual(['2026-10-24', '2026-11-22']);
    expect(body.rates).toMatchObject({ bounceRate: null, complaintRate: null });
  });
});

runCommonRouteTests('getDailyStats', () => h);
