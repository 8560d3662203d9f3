// POST /v1/send/batch (DESIGN.md §12): each item checked as POST /v1/send checks a send, answered
// in order; a bad item never refuses the others; the accepted ones in one transaction; an
// Idempotency-Key replays the whole answer; rate limits count items; a send key may use it.
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import {
  bearer,
  createHarness,
  type Harness,
  postJson,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const login = (to: string, extra: Record<string, unknown> = {}) => ({
  templateId: 'login-code',
  to,
  data: { code: '482913' },
  ...extra,
});
const batch = (items: unknown[], apiKey = s.apiKey, key?: string) =>
  h.request({
    method: 'POST',
    url: '/v1/send/batch',
    headers: {
      ...bearer(apiKey),
      'content-type': 'application/json',
      ...(key && { 'idempotency-key': key }),
    },
    payload: JSON.stringify({ items }),
  });
const messageCount = async (environmentId = s.environmentId) =>
  Number(
    (
      await h.runtime.deps.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('environment_id', '=', environmentId)
        .executeTakeFirstOrThrow()
    ).n,
  );

interface Result {
  status: 'accepted' | 'refused';
  messageId?: string;
  error?: { code: string; message: string; details?: { path: string }[] };
}

describe('POST /v1/send/batch', () => {
  it('accepts 97 of 100 with 3 bad items, answers each in order at its path, in one transaction', async () => {
    const items: unknown[] = Array.from({ length: 100 }, (_, i) =>
      login(`batch-${i}@example.com`, { metadata: { n: String(i) } }),
    );
    items[7] = login('not-an-address');
    items[42] = { templateId: 'login-code', to: 'batch-42@example.com', data: { code: 12 } };
    items[99] = 'not an object';
    const before = await messageCount();
    const res = await batch(items);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { accepted: number; refused: number; results: Result[]; idempotent: boolean };
    expect([body.accepted, body.refused, body.idempotent]).toEqual([97, 3, false]);
    expect(body.results).toHaveLength(100);
    expect(body.results[7]).toEqual({
      status: 'refused',
      error: {
        code: 'invalid_request',
        message: expect.any(String),
        details: [{ path: '/items/7/to', message: expect.any(String) }],
      },
    });
    expect(body.results[42]!.error).toMatchObject({
      code: 'invalid_template_data',
      details: [{ path: '/items/42/data/code' }],
    });
    expect(body.results[99]!.error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/items/99' }],
    });
    const ids = body.results.filter((r) => r.status === 'accepted').map((r) => r.messageId!);
    expect(new Set(ids).size).toBe(97);
    expect(await messageCount()).toBe(before + 97);
    // one group commit: every accepted row written by one transaction
    const { rows } = await sql<{ n: number }>`
      SELECT count(DISTINCT xmin::text)::int AS n FROM messages WHERE id = ANY (${ids}::text[])`.execute(
      h.runtime.deps.db,
    );
    expect(rows[0]!.n).toBe(1);
    // each item as its own message: its recipient and metadata
    const third = await postJson(h, s.apiKey, '/v1/messages/get', { messageId: body.results[3]!.messageId });
    expect(third.json().message).toMatchObject({ emailMasked: 'b***@example.com', metadata: { n: '3' } });
  });

  it('answers a refusal made in the database per item: a complained recipient among accepted ones', async () => {
    await h.runtime.deps.db
      .insertInto('recipients')
      .values({
        environment_id: s.environmentId,
        tenant_id: s.tenantId,
        email: 'complained-b@example.com',
        complained_at: h.clock.now(),
        complaint_count: 1,
      })
      .execute();
    const res = await batch([
      login('ok-b@example.com'),
      login('complained-b@example.com'),
      login('ok-c@example.com'),
    ]);
    const results = res.json().results as Result[];
    expect(results.map((r) => r.status)).toEqual(['accepted', 'refused', 'accepted']);
    expect(results[1]!.error!.code).toBe('recipient_complained');
  });

  it('replays the whole answer for the same batch and Idempotency-Key, sends nothing more; another batch with the key is 409', async () => {
    const items = [login('idem-b1@example.com'), login('bad')];
    const first = await batch(items, s.apiKey, 'batch-key-1');
    const count = await messageCount();
    const again = await batch(items, s.apiKey, 'batch-key-1');
    expect(again.json()).toEqual({ ...first.json(), idempotent: true });
    expect(await messageCount()).toBe(count);
    const other = await batch([login('idem-b2@example.com')], s.apiKey, 'batch-key-1');
    expect([other.statusCode, other.json().error.code]).toEqual([409, 'idempotency_key_reused']);
    // a key a single send holds is another request too, both ways
    const single = await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': 'application/json', 'idempotency-key': 'batch-key-1' },
      payload: JSON.stringify(login('idem-b1@example.com')),
    });
    expect([single.statusCode, single.json().error.code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('gives one message for concurrent batches with one Idempotency-Key', async () => {
    const items = [login('race-b@example.com')];
    const before = await messageCount();
    const answers = await Promise.all(Array.from({ length: 5 }, () => batch(items, s.apiKey, 'batch-race')));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().results[0].messageId)).size).toBe(1);
    expect(answers.filter((a) => a.json().idempotent === false)).toHaveLength(1);
    expect(await messageCount()).toBe(before + 1);
  });

  it('replays an accepted batch for its key also once the environment is paused, and answers 409 for a key another request holds whatever the items', async () => {
    const t = await seedScope(h);
    const items = [login('replay-paused@example.com')];
    const first = await batch(items, t.apiKey, 'paused-replay');
    expect(first.json().accepted).toBe(1);
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'paused' });
    h.runtime.deps.keyCache.clear();
    expect((await batch(items, t.apiKey, 'paused-replay')).json()).toEqual({
      ...first.json(),
      idempotent: true,
    });
    // a key a single send holds: 409 even when every item would be refused
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'active' });
    h.runtime.deps.keyCache.clear();
    await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(t.apiKey), 'content-type': 'application/json', 'idempotency-key': 'held-by-send' },
      payload: JSON.stringify(login('held@example.com')),
    });
    const res = await batch([login('bad')], t.apiKey, 'held-by-send');
    expect([res.statusCode, res.json().error.code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('keeps no key for a batch whose every item was refused, in the checks or in the database: the corrected batch may use it', async () => {
    await h.runtime.deps.db
      .insertInto('recipients')
      .values({
        environment_id: s.environmentId,
        tenant_id: s.tenantId,
        email: 'complained-k@example.com',
        complained_at: h.clock.now(),
        complaint_count: 1,
      })
      .execute();
    const refused = await batch([login('complained-k@example.com')], s.apiKey, 'all-refused');
    expect(refused.json().results[0].error.code).toBe('recipient_complained');
    const early = await batch([login('bad')], s.apiKey, 'all-refused-early');
    expect(early.json().refused).toBe(1);
    for (const key of ['all-refused', 'all-refused-early']) {
      const corrected = await batch([login(`corrected-${key}@example.com`)], s.apiKey, key);
      expect([corrected.statusCode, corrected.json().accepted, corrected.json().idempotent], key).toEqual([
        200,
        1,
        false,
      ]);
    }
  });

  it('answers 400 for a batch larger than the key may ever send at once (its plan’s rate or burst allowance)', async () => {
    await h.admin('plans.create', {
      id: 'batch-small',
      monthlyLimit: 100000,
      overageAllowed: false,
      rateLimitPerSecond: 10,
      rateLimitBurst: 10,
    });
    const t = await seedScope(h);
    await h.admin('tenants.update', { id: t.tenantId, plan: 'batch-small' });
    h.runtime.deps.keyCache.clear();
    const res = await batch(
      Array.from({ length: 11 }, (_, i) => login(`small-${i}@example.com`)),
      t.apiKey,
    );
    expect([res.statusCode, res.json().error.code, res.json().error.details[0].path]).toEqual([
      400,
      'invalid_request',
      '/items',
    ]);
    expect(await messageCount(t.environmentId)).toBe(0);
  });

  it('counts each item against the key’s rate limit: a batch over what is left is 429', async () => {
    await h.admin('plans.create', {
      id: 'batch-rate',
      monthlyLimit: 100000,
      overageAllowed: false,
      rateLimitPerSecond: 10,
      rateLimitBurst: 20,
    });
    const t = await seedScope(h);
    await h.admin('tenants.update', { id: t.tenantId, plan: 'batch-rate' });
    h.runtime.deps.keyCache.clear();
    // 10 a second, and 10 more from the burst allowance: two batches of 10, then nothing
    const ten = (round: number) =>
      Array.from({ length: 10 }, (_, i) => login(`rate-${round}-${i}@example.com`));
    expect((await batch(ten(1), t.apiKey)).statusCode).toBe(200);
    expect((await batch(ten(2), t.apiKey)).statusCode).toBe(200);
    const res = await batch(ten(3), t.apiKey);
    expect([res.statusCode, res.json().error.code]).toEqual([429, 'rate_limited']);
    expect(res.headers['retry-after']).toBeDefined();
    expect(await messageCount(t.environmentId)).toBe(20);
  });

  it('takes a send key, and a send key’s categories item by item', async () => {
    const made = await postJson(h, s.apiKey, '/v1/keys/create', {
      scope: 'send',
      templateCategories: ['security'],
    });
    const apiKey = made.json().apiKey as string;
    const res = await batch(
      [login('cat-b@example.com'), { templateId: 'welcome', to: 'cat-b@example.com', data: {} }],
      apiKey,
    );
    expect((res.json().results as Result[]).map((r) => r.error?.code ?? r.status)).toEqual([
      'accepted',
      'insufficient_scope',
    ]);
  });

  it('answers app_paused for every item of a paused environment and accepts nothing', async () => {
    const t = await seedScope(h);
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'paused' });
    h.runtime.deps.keyCache.clear();
    const res = await batch([login('paused-1@example.com'), login('paused-2@example.com')], t.apiKey);
    expect((res.json().results as Result[]).map((r) => r.error?.code)).toEqual(['app_paused', 'app_paused']);
    expect(await messageCount(t.environmentId)).toBe(0);
  });

  it('refuses a body without 1 to 100 items with 400 invalid_request', async () => {
    for (const payload of [
      {},
      { items: [] },
      { items: Array.from({ length: 101 }, () => login('x@example.com')) },
      { items: 'x' },
      { items: [], more: 1 },
    ]) {
      const res = await postJson(h, s.apiKey, '/v1/send/batch', payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });
});

runCommonRouteTests('sendBatch', () => h);
