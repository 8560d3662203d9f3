// Every route against a real in-process core (the server's harness: PGlite, or PostgreSQL with
// TEST_DATABASE_URL), listening on a real port.
import { getFixture, getTemplate, listTemplates } from '@mailsvc/templates';
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, call, type Router, testRouter } from './helpers.js';

let h: Harness;
let s: Scope;
let coreUrl: string;
let router: Router;
let logs: ReturnType<typeof testRouter>['logs'];

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 10_000 });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.app.server.address();
  coreUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // Some tests pass `from` to check the core's refusal, so callers may set the sender here.
  ({ router, logs } = testRouter({
    MAILSVC_API_KEY: s.apiKey,
    MAILSVC_CORE_URL: coreUrl,
    MAILSVC_ALLOW_SENDER_OVERRIDE: true,
  }));
});
afterAll(async () => {
  router?.close();
  await h?.close();
});

const messages = () =>
  h.runtime.deps.db
    .selectFrom('messages')
    .select(['id', 'template_id', 'template_version', 'to_email'])
    .where('environment_id', '=', s.environmentId)
    .execute();

const countMessages = async () => (await messages()).length;

const LOGIN = { to: 'jane@example.com', data: { code: '482913' } };

describe('every catalogue route', () => {
  it('has 52 routes, one per template, with the seed operation names', () => {
    expect(listTemplates()).toHaveLength(52);
    const ids = listTemplates().map((t) => t.operationName);
    expect(ids).toContain('sendLoginCode');
    expect(ids).toContain('sendPaymentFailed');
  });

  it.each(listTemplates().map((t) => [t.routePath, t.id] as const))(
    'POST %s forwards templateId %s and the core accepts the message',
    async (routePath, templateId) => {
      const data = getFixture(getTemplate(templateId, 'v1').version);
      const to = `${templateId}@example.com`;
      const res = await call(router, routePath, { body: { to, data } });
      expect(res.status, res.body).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        ok: true,
        status: 'accepted',
        messageId: expect.stringMatching(/^msg_/),
        idempotent: false,
      });
      const row = (await messages()).find((m) => m.id === body.messageId);
      expect(row).toMatchObject({ template_id: templateId, template_version: 'v1', to_email: to });
    },
  );
});

describe('envelope', () => {
  it('refuses an extra property with 400 invalid_request naming it, and sends nothing', async () => {
    const before = await countMessages();
    const res = await call(router, '/auth/login-code', { body: { ...LOGIN, templateId: 'magic-link' } });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/templateId', message: 'is not an allowed property' }],
      requestId: expect.stringMatching(/^req_/),
    });
    expect(await countMessages()).toBe(before);
  });

  it('requires to and data, reporting both at once', async () => {
    const res = await call(router, '/auth/login-code', { body: {} });
    expect(res.status).toBe(400);
    expect(res.json().error.details).toEqual([
      { path: '/to', message: 'is required' },
      { path: '/data', message: 'is required' },
    ]);
  });

  it.each([
    ['display name', 'Jane <jane@example.com>'],
    ['two addresses', 'a@example.com, b@example.com'],
    ['CR/LF', 'a@example.com\r\nBcc: b@example.com'],
    ['no domain', 'jane@'],
    ['single-label domain', 'jane@localhost'],
    ['not a string', 42],
  ])('refuses a bad to (%s) with 400 invalid_request at /to', async (_name, to) => {
    const res = await call(router, '/auth/login-code', { body: { ...LOGIN, to } });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toEqual(['/to']);
  });

  it('checks from and replyTo as addresses, and the types of fromName and idempotencyKey', async () => {
    const res = await call(router, '/auth/login-code', {
      body: { ...LOGIN, from: 'not-an-address', replyTo: 'x@', fromName: 7, idempotencyKey: 'has space' },
    });
    expect(res.status).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toEqual([
      '/from',
      '/replyTo',
      '/fromName',
      '/idempotencyKey',
    ]);
  });

  it('checks metadata by the core’s rule: keys, string values, no control characters, at most 20 keys', async () => {
    const res = await call(router, '/auth/login-code', {
      body: { ...LOGIN, metadata: { 'bad key': 'v', count: 3, note: 'a\r\nb', ok: 'fine' } },
    });
    expect(res.status).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toEqual([
      '/metadata/bad key',
      '/metadata/count',
      '/metadata/note',
    ]);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await call(router, '/auth/login-code', { body: { ...LOGIN, metadata: many } });
    expect(tooMany.json().error.details).toEqual([
      { path: '/metadata', message: 'must have at most 20 keys' },
    ]);
    // 256 characters counted as the core counts them: code points, so 256 emoji are fine
    const emoji = await call(router, '/auth/login-code', {
      body: { ...LOGIN, metadata: { e: '😀'.repeat(256) } },
    });
    expect(
      emoji.json().error?.details?.some((d: { path: string }) => d.path.startsWith('/metadata')),
    ).not.toBe(true);
    const notObject = await call(router, '/auth/login-code', { body: { ...LOGIN, metadata: ['a'] } });
    expect(notObject.json().error.details.map((d: { path: string }) => d.path)).toEqual(['/metadata']);
  });

  it('refuses data that is not an object, and a body that is not an object', async () => {
    const a = await call(router, '/auth/login-code', { body: { to: 'jane@example.com', data: [1] } });
    expect(a.json().error.details).toEqual([{ path: '/data', message: 'must be an object' }]);
    const b = await call(router, '/auth/login-code', { body: [LOGIN] });
    expect(b.json().error).toMatchObject({ code: 'invalid_request', details: [{ path: '/' }] });
  });

  it('answers bad JSON and an empty body with 400 invalid_request, not 500', async () => {
    const a = await call(router, '/auth/login-code', { raw: '{"to":' });
    expect([a.status, a.json().error.code]).toEqual([400, 'invalid_request']);
    const b = await call(router, '/auth/login-code', { raw: '' });
    expect([b.status, b.json().error.code]).toEqual([400, 'invalid_request']);
  });

  it('answers a non-JSON content type with 415 and a body over 256 KiB with 413', async () => {
    const a = await call(router, '/auth/login-code', {
      raw: JSON.stringify(LOGIN),
      headers: { 'content-type': 'text/plain' },
    });
    expect([a.status, a.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const b = await call(router, '/auth/login-code', { raw: `{"x":"${'a'.repeat(300_000)}"}` });
    expect([b.status, b.json().error.code]).toEqual([413, 'payload_too_large']);
  });
});

describe('template data', () => {
  it('validates data against the route template before forwarding, with every failing path', async () => {
    const before = await countMessages();
    const res = await call(router, '/auth/magic-link', {
      body: {
        to: 'jane@example.com',
        data: { actionButton: { url: 'javascript:alert(1)' }, heading: 'x'.repeat(181), extra: 1 },
      },
    });
    expect(res.status).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('invalid_template_data');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: '/data/actionButton/url', message: expect.stringContaining('must be an http or https URL') },
        { path: '/data/heading', message: expect.stringContaining('180') },
        { path: '/data/extra', message: 'is not an allowed property' },
      ]),
    );
    expect(await countMessages()).toBe(before);
  });

  it('reports a missing required field at its path', async () => {
    const res = await call(router, '/auth/login-code', { body: { to: 'jane@example.com', data: {} } });
    expect(res.json().error).toMatchObject({
      code: 'invalid_template_data',
      details: [{ path: '/data/code', message: 'is required' }],
    });
  });
});

describe('templateVersion', () => {
  it('defaults to v1: a field only v2 has is refused without templateVersion', async () => {
    const res = await call(router, '/account/welcome', {
      body: { to: 'w1@example.com', data: { notice: 'Hi' } },
    });
    expect(res.json().error).toMatchObject({
      code: 'invalid_template_data',
      details: [{ path: '/data/notice', message: 'is not an allowed property' }],
    });
    const ok = await call(router, '/account/welcome', { body: { to: 'w1@example.com', data: {} } });
    expect(ok.status).toBe(200);
    const row = (await messages()).find((m) => m.id === ok.json().messageId);
    expect(row?.template_version).toBe('v1');
  });

  it('validates against and sends the version named', async () => {
    const res = await call(router, '/account/welcome', {
      body: { to: 'w2@example.com', data: { notice: 'Hi' }, templateVersion: 'v2' },
    });
    expect(res.status, res.body).toBe(200);
    const row = (await messages()).find((m) => m.id === res.json().messageId);
    expect(row?.template_version).toBe('v2');
  });

  it('passes the core 404 template_version_not_found through for a version that is not published', async () => {
    const before = await countMessages();
    for (const templateVersion of ['v9', 'v2']) {
      const path = templateVersion === 'v2' ? '/notifications/activity-digest' : '/auth/login-code';
      const res = await call(router, path, { body: { ...LOGIN, templateVersion } });
      expect(res.status).toBe(404);
      expect(res.json().error.code).toBe('template_version_not_found');
    }
    expect(await countMessages()).toBe(before);
  });
});

describe('idempotencyKey', () => {
  it('sends once for a replayed key: the second answer is the first message, idempotent', async () => {
    const before = await countMessages();
    const body = { ...LOGIN, to: 'idem@example.com', idempotencyKey: 'login-42' };
    const first = await call(router, '/auth/login-code', { body });
    const second = await call(router, '/auth/login-code', { body });
    expect(first.json()).toMatchObject({ ok: true, idempotent: false });
    expect(second.json()).toEqual({ ...first.json(), idempotent: true });
    expect(await countMessages()).toBe(before + 1);
  });

  it('passes 409 idempotency_key_reused through for the same key with another body', async () => {
    await call(router, '/auth/login-code', {
      body: { ...LOGIN, to: 'idem2@example.com', idempotencyKey: 'k-2' },
    });
    const res = await call(router, '/auth/login-code', {
      body: { ...LOGIN, to: 'other@example.com', idempotencyKey: 'k-2' },
    });
    expect([res.status, res.json().error.code]).toEqual([409, 'idempotency_key_reused']);
  });
});

describe('core refusals caused by the caller', () => {
  it('passes 403 recipient_complained through with its code', async () => {
    await h.runtime.deps.db
      .insertInto('recipients')
      .values({
        environment_id: s.environmentId,
        tenant_id: s.tenantId,
        email: 'angry@example.com',
        complained_at: new Date(),
      })
      .execute();
    const res = await call(router, '/auth/login-code', { body: { ...LOGIN, to: 'Angry@Example.com' } });
    expect([res.status, res.json().error.code]).toEqual([403, 'recipient_complained']);
  });

  it('passes 403 from_domain_not_allowed through for a from on another domain', async () => {
    const res = await call(router, '/auth/login-code', { body: { ...LOGIN, from: 'me@elsewhere.example' } });
    expect([res.status, res.json().error.code]).toEqual([403, 'from_domain_not_allowed']);
  });

  it('answers a revoked wrapper key with 500 send_failed and logs it loudly', async () => {
    const t = await seedScope(h);
    await h.admin('keys.revoke', { id: t.keyId });
    const other = testRouter({ MAILSVC_API_KEY: t.apiKey, MAILSVC_CORE_URL: coreUrl });
    const res = await call(other.router, '/auth/login-code', { body: LOGIN });
    other.router.close();
    expect([res.status, res.json().error.code]).toEqual([500, 'send_failed']);
    expect(res.body).not.toContain('api_key_revoked');
    expect(other.logs.text()).toContain('check MAILSVC_API_KEY');
    expect(other.logs.text()).not.toContain(t.apiKey);
  });
});

describe('logs and responses', () => {
  it('never contain the API key, and name recipients only masked', () => {
    const text = logs.text();
    expect(text).not.toContain(s.apiKey);
    expect(text).not.toContain(s.apiKey.split('_').at(-1));
    expect(text).not.toContain('jane@example.com');
    expect(text).toContain('j***@example.com');
    expect(API_KEY).not.toBe(s.apiKey);
  });
});

describe('routing', () => {
  it('answers an unknown path with 404 not_found and GET on a route with 405 and Allow', async () => {
    const a = await call(router, '/auth/nope', { body: LOGIN });
    expect([a.status, a.json().error.code]).toEqual([404, 'not_found']);
    // what a caller typed in an unknown path (here an address) is not logged: the line says (no route)
    const typed = await call(router, '/auth/someone-typed@example.com/x', { body: LOGIN });
    expect(typed.status).toBe(404);
    expect(logs.text()).not.toContain('someone-typed@example.com');
    expect(logs.text()).toContain('"path":"(no route)"');
    const b = await call(router, '/auth/login-code', { method: 'GET' });
    expect([b.status, b.json().error.code, b.headers.Allow]).toEqual([
      405,
      'method_not_allowed',
      'OPTIONS, POST',
    ]);
  });

  it('answers under the emulator address shape /<project>/europe-west2/<function>/…', async () => {
    const res = await call(router, '/demo-mailsvc/europe-west2/mailsvc/auth/login-code', {
      body: { ...LOGIN, to: 'emu@example.com' },
    });
    expect(res.status, res.body).toBe(200);
  });
});
