// POST /v1/audit/list (DESIGN.md §12): the key's environment's audit events — keys made and
// revoked, resubscribes, changes to it — newest first, by action and time, cursor pages bound to
// the environment and filters; another environment's events never shown; full keys only.
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;
let s: Scope;
let other: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  other = await seedScope(h);
});
afterAll(() => h.close());

const SECOND = 1000;
const list = (body: Record<string, unknown>, apiKey = s.apiKey) =>
  postJson(h, apiKey, '/v1/audit/list', body);

interface Item {
  id: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
  createdAt: string;
}

describe('POST /v1/audit/list', () => {
  const made: string[] = [];
  let start: Date;

  beforeAll(async () => {
    start = h.clock.now();
    for (let i = 0; i < 3; i++) {
      h.clock.advance(SECOND);
      const res = await postJson(h, s.apiKey, '/v1/keys/create', { scope: 'send', name: `audit ${i}` });
      made.push(res.json().key.keyId);
    }
    h.clock.advance(SECOND);
    const revoked = await postJson(h, s.apiKey, '/v1/keys/revoke', { keyId: made[0] });
    expect(revoked.statusCode, revoked.body).toBe(200);
    h.clock.advance(SECOND);
    await postJson(h, s.apiKey, '/v1/recipients/resubscribe', {
      email: 'Audit@Example.com',
      scope: 'app_notifications',
    });
    // the other environment's own event
    await postJson(h, other.apiKey, '/v1/keys/create', { scope: 'send' });
  });

  it('lists the environment’s events newest first, as recorded, with nothing of another environment', async () => {
    const events = (await list({})).json().events as Item[];
    expect(events.map((e) => e.action).slice(0, 5)).toEqual([
      'recipient.resubscribed',
      'api_key.revoked',
      'api_key.created',
      'api_key.created',
      'api_key.created',
    ]);
    expect(events[0]).toMatchObject({
      actor: `key:${s.keyId}`,
      targetType: 'recipient',
      targetId: `${s.environmentId}:a***@example.com`,
      details: { emailMasked: 'a***@example.com', scope: 'app_notifications' },
    });
    expect(JSON.stringify(events)).not.toMatch(/audit@example\.com/i);
    expect(events[1]).toMatchObject({ targetType: 'api_key', targetId: made[0] });
    const theirs = (await list({}, other.apiKey)).json().events as Item[];
    expect(theirs.length).toBeGreaterThan(0);
    for (const e of theirs) expect(made).not.toContain(e.targetId);
    expect(theirs.some((e) => e.targetId.startsWith(s.environmentId))).toBe(false);
  });

  it('filters by action and by time', async () => {
    const created = (await list({ action: ['api_key.created'] })).json().events as Item[];
    expect(created.map((e) => e.targetId).slice(0, 3)).toEqual([...made].reverse());
    const at = (n: number) => new Date(start.getTime() + n * SECOND).toISOString();
    const window = (await list({ createdAfter: at(2), createdBefore: at(4) })).json().events as Item[];
    expect(window.map((e) => e.targetId)).toEqual([made[2], made[1]]);
  });

  it('pages with a cursor bound to its filters and environment', async () => {
    const first = (await list({ pageSize: 2 })).json();
    expect(first.events).toHaveLength(2);
    const second = (await list({ pageSize: 2, cursor: first.nextCursor })).json();
    expect(second.events[0].id < first.events[1].id).toBe(true);
    for (const [body, apiKey] of [
      [{ pageSize: 2, cursor: first.nextCursor, action: ['api_key.created'] }, s.apiKey],
      [{ pageSize: 2, cursor: first.nextCursor }, other.apiKey],
      [{ cursor: `${first.nextCursor}x` }, s.apiKey],
    ] as const) {
      const res = await list(body as Record<string, unknown>, apiKey);
      expect([res.statusCode, res.json().error.details[0].path]).toEqual([400, '/cursor']);
    }
  });

  it('is refused to a send key with 403 insufficient_scope, and bad filters with 400 at their path', async () => {
    const key = (await postJson(h, s.apiKey, '/v1/keys/create', { scope: 'send' })).json().apiKey as string;
    const res = await list({}, key);
    expect([res.statusCode, res.json().error.code]).toEqual([403, 'insufficient_scope']);
    for (const [body, path] of [
      [{ action: [] }, '/action'],
      [{ action: ['Not An Action'] }, '/action/0'],
      [{ createdAfter: 'yesterday' }, '/createdAfter'],
      [{ pageSize: 0 }, '/pageSize'],
      [{ extra: 1 }, '/extra'],
    ] as const) {
      const bad = await list(body as Record<string, unknown>);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});

runCommonRouteTests('listAuditEvents', () => h);
