// Scoped API keys (DESIGN.md §12): POST /v1/keys/create|list|revoke with a full key; a send key
// refused with 403 insufficient_scope on every operation but send and quota (generated from the
// contract: every operation × every scope); a send key limited to template categories; last used
// written at most once a minute; the admin CLI's --scope.
import { type OperationId, operations } from '@mailsvc/contract/api';
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

const post = (url: string, body: unknown, apiKey = s.apiKey) => postJson(h, apiKey, url, body);
const create = async (body: Record<string, unknown>, apiKey = s.apiKey) => {
  const res = await post('/v1/keys/create', body, apiKey);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { key: { keyId: string; scope: string }; apiKey: string };
};
const login = (to: string) => ({ templateId: 'login-code', to, data: { code: '482913' } });

/** A body each operation takes (its example's), for calling it with a key of each scope. */
function callOf(id: OperationId): { method: 'GET' | 'POST'; url: string; body?: unknown } {
  const op = operations[id];
  return {
    method: op.method,
    url: op.path,
    ...('example' in op && op.example && 'body' in op.example && { body: op.example.body }),
  };
}

describe('POST /v1/keys/create, list, revoke', () => {
  it('creates a send key whose secret is shown once, lists it without the secret, and revokes it', async () => {
    const made = await create({ scope: 'send', name: 'wrapper' });
    expect(made.apiKey).toMatch(/^msk_[0-9A-HJKMNP-TV-Z]{26}_[0-9A-Za-z]{43}$/);
    expect(made.key).toEqual({
      keyId: expect.stringMatching(/^key_/),
      hint: expect.stringMatching(/^msk_.*_…/),
      name: 'wrapper',
      scope: 'send',
      templateCategories: null,
      status: 'active',
      createdAt: expect.any(String),
      lastUsedAt: null,
      revokedAt: null,
    });
    const listed = (await post('/v1/keys/list', {})).json().keys as { keyId: string }[];
    expect(listed.map((k) => k.keyId)).toContain(made.key.keyId);
    expect(JSON.stringify(listed)).not.toContain(made.apiKey.slice(-43));
    // the new key sends
    expect((await post('/v1/send', login('keys-send@example.com'), made.apiKey)).statusCode).toBe(200);
    const revoked = await post('/v1/keys/revoke', { keyId: made.key.keyId });
    expect(revoked.json().key).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    h.runtime.deps.keyCache.clear();
    const after = await post('/v1/send', login('keys-send@example.com'), made.apiKey);
    expect([after.statusCode, after.json().error.code]).toEqual([403, 'api_key_revoked']);
  });

  it('writes an audit event for each creation and revocation, naming the key that did it', async () => {
    const made = await create({ scope: 'full', name: 'audit me' });
    await post('/v1/keys/revoke', { keyId: made.key.keyId });
    const events = await h.runtime.deps.db
      .selectFrom('audit_events')
      .select(['action', 'actor', 'target_id'])
      .where('target_id', '=', made.key.keyId)
      // one clock reading apart at most: ids of the same millisecond have no order
      .orderBy('action')
      .execute();
    expect(events).toEqual([
      { action: 'api_key.created', actor: `key:${s.keyId}`, target_id: made.key.keyId },
      { action: 'api_key.revoked', actor: `key:${s.keyId}`, target_id: made.key.keyId },
    ]);
  });

  it('records one revocation when two race for the same key', async () => {
    const made = await create({ scope: 'send' });
    const answers = await Promise.all(
      [1, 2, 3].map(() => post('/v1/keys/revoke', { keyId: made.key.keyId })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().key.revokedAt)).size).toBe(1);
    const events = await h.runtime.deps.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', made.key.keyId)
      .where('action', '=', 'api_key.revoked')
      .execute();
    expect(events).toHaveLength(1);
  });

  it('answers 404 key_not_found for another environment’s key and an unknown one', async () => {
    for (const keyId of [other.keyId, 'key_01M81C1XJB7Y4KHB01G4B1P0M5']) {
      const res = await post('/v1/keys/revoke', { keyId });
      expect([res.statusCode, res.json().error.code]).toEqual([404, 'key_not_found']);
    }
    // the other environment's key still works
    expect((await post('/v1/send', login('keys-other@example.com'), other.apiKey)).statusCode).toBe(200);
  });

  it('refuses templateCategories on a full key and bad bodies with 400 invalid_request at their path', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ scope: 'full', templateCategories: ['security'] }, '/templateCategories'],
      [{ scope: 'admin' }, '/scope'],
      [{}, '/scope'],
      [{ scope: 'send', templateCategories: [] }, '/templateCategories'],
      [{ scope: 'send', templateCategories: ['marketing'] }, '/templateCategories/0'],
      [{ scope: 'send', templateCategories: ['security', 'security'] }, '/templateCategories'],
      [{ scope: 'send', name: 'a\u202eb' }, '/name'],
      [{ scope: 'send', name: '' }, '/name'],
    ];
    for (const [body, path] of cases) {
      const res = await post('/v1/keys/create', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      const paths: string[] = res.json().error.details.map((d: { path: string }) => d.path);
      expect(
        paths.some((p) => p.startsWith(path)),
        `${JSON.stringify(body)} → ${paths}`,
      ).toBe(true);
    }
  });
});

describe('a send key', () => {
  let sendKey: string;
  beforeAll(async () => {
    sendKey = (await create({ scope: 'send', name: 'scope matrix' })).apiKey;
  });

  it('is refused with 403 insufficient_scope on every operation but those its scope lists (every operation × every scope)', async () => {
    const keyed = (Object.keys(operations) as OperationId[]).filter(
      (id) => (operations[id] as { auth?: string }).auth === undefined,
    );
    expect(keyed.length).toBeGreaterThan(10);
    for (const id of keyed) {
      const op = operations[id] as { scopes?: readonly string[] };
      const call = callOf(id);
      for (const [scope, apiKey] of [
        ['send', sendKey],
        ['full', s.apiKey],
      ] as const) {
        const res = await h.request({
          method: call.method,
          url: call.url,
          headers: {
            authorization: `Bearer ${apiKey}`,
            ...(call.method === 'POST' && { 'content-type': 'application/json' }),
          },
          ...(call.body !== undefined && { payload: JSON.stringify(call.body) }),
        });
        const code = res.statusCode === 200 ? 'ok' : res.json().error.code;
        const allowed = (op.scopes ?? ['full']).includes(scope);
        if (allowed) expect(code, `${scope} key on ${id}`).not.toBe('insufficient_scope');
        else expect([res.statusCode, code], `${scope} key on ${id}`).toEqual([403, 'insufficient_scope']);
      }
    }
    // the full key's domains/add example left a pending sending domain, which refuses every send
    await h.runtime.deps.db.deleteFrom('sending_domains').where('tenant_id', '=', s.tenantId).execute();
  });

  it('sends and reads the quota', async () => {
    expect((await post('/v1/send', login('send-key@example.com'), sendKey)).statusCode).toBe(200);
    const quota = await h.request({
      method: 'GET',
      url: '/v1/quota',
      headers: { authorization: `Bearer ${sendKey}` },
    });
    expect(quota.statusCode).toBe(200);
  });

  it('limited to security templates, sends a login code and is refused a welcome with 403 insufficient_scope', async () => {
    const { apiKey } = await create({ scope: 'send', templateCategories: ['security'] });
    expect((await post('/v1/send', login('cat-key@example.com'), apiKey)).statusCode).toBe(200);
    const res = await post(
      '/v1/send',
      { templateId: 'welcome', to: 'cat-key@example.com', data: {} },
      apiKey,
    );
    expect([res.statusCode, res.json().error.code]).toEqual([403, 'insufficient_scope']);
    expect(res.json().error.message).toMatch(/security/);
  });

  it('cannot create, list or revoke keys: a key never makes a broader one', async () => {
    for (const url of ['/v1/keys/create', '/v1/keys/list', '/v1/keys/revoke']) {
      const res = await post(
        url,
        url.endsWith('create') ? { scope: 'full' } : url.endsWith('list') ? {} : { keyId: s.keyId },
        sendKey,
      );
      expect([res.statusCode, res.json().error.code], url).toEqual([403, 'insufficient_scope']);
    }
  });
});

/** The write noted once the answer was sent (onResponse), done. */
const settled = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  await h.runtime.deps.keyUsage.flushed();
};

describe('last used', () => {
  it('is written when a key authenticates, at most once a minute per key', async () => {
    const made = await create({ scope: 'send' });
    const lastUsed = async () =>
      (
        await h.runtime.deps.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', made.key.keyId)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    const t0 = h.clock.now();
    await post('/v1/send', login('used@example.com'), made.apiKey);
    await settled();
    expect(await lastUsed()).toEqual(t0);
    h.clock.advance(30_000);
    await post('/v1/send', login('used@example.com'), made.apiKey);
    await settled();
    expect(await lastUsed()).toEqual(t0);
    h.clock.advance(31_000);
    await post('/v1/send', login('used@example.com'), made.apiKey);
    await settled();
    expect(await lastUsed()).toEqual(new Date(t0.getTime() + 61_000));
  });
});

for (const id of ['createKey', 'listKeys', 'revokeKey'] as const) runCommonRouteTests(id, () => h);
