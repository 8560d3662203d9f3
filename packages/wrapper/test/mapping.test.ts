// Status mapping (DESIGN.md §8) against a stub core that answers each relevant status and code.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { coreErrors as errorCatalogue } from '@mailsvc/contract/errors';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { coreErrorHandling } from '../src/errors.js';
import { API_KEY, call, type Router, type StubCore, startStubCore, testRouter } from './helpers.js';

let stub: StubCore;
let router: Router;
let logs: ReturnType<typeof testRouter>['logs'];

beforeAll(async () => {
  stub = await startStubCore();
  ({ router, logs } = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_WRAPPER_TIMEOUT_MS: 300 }));
});
afterAll(async () => {
  await router.close();
  await stub.close();
});
const defaultAnswer = () => ({
  status: 200,
  body: { ok: true, status: 'accepted', messageId: 'msg_01STUB0000000000000000000', idempotent: false },
});
afterEach(() => {
  stub.answer = defaultAnswer;
});

const LOGIN = { to: 'Jane@Example.com', data: { code: '482913' } };
const coreError = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
  status,
  body: { ok: false, error: { code, message: `core says ${code}`, requestId: 'req_CORE', ...extra } },
});

describe('forwarding', () => {
  it('posts the envelope to /v1/send with the templateId, Bearer key and Idempotency-Key', async () => {
    stub.calls.length = 0;
    const t = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_ALLOW_SENDER_OVERRIDE: true });
    const res = await call(t.router, '/auth/login-code', {
      body: {
        ...LOGIN,
        idempotencyKey: 'abc-1',
        fromName: 'Acme',
        replyTo: 'help@example.com',
        metadata: { userId: 'u_4821' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(defaultAnswer().body);
    expect(stub.calls).toHaveLength(1);
    const [c] = stub.calls;
    expect(c!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(c!.headers['idempotency-key']).toBe('abc-1');
    expect(c!.headers['content-type']).toBe('application/json');
    expect(c!.body).toEqual({
      templateId: 'login-code',
      to: 'Jane@Example.com',
      data: { code: '482913' },
      templateVersion: 'v1',
      fromName: 'Acme',
      replyTo: 'help@example.com',
      metadata: { userId: 'u_4821' },
    });
    t.router.close();
  });

  it('keeps connections to the core alive between requests', async () => {
    const ports = new Set<number>();
    const server = http.createServer((req, res) => {
      ports.add(req.socket.remotePort!);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(defaultAnswer().body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const t = testRouter({ MAILSVC_CORE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    for (let i = 0; i < 3; i++)
      expect((await call(t.router, '/auth/login-code', { body: LOGIN })).status).toBe(200);
    t.router.close();
    server.closeAllConnections();
    server.close();
    expect(ports.size).toBe(1);
  });
});

describe('a kept-alive connection the core has closed', () => {
  it('is retried once on a new connection instead of failing the send', async () => {
    const requestsPerSocket = new Map<unknown, number>();
    const server = http.createServer((req, res) => {
      const n = (requestsPerSocket.get(req.socket) ?? 0) + 1;
      requestsPerSocket.set(req.socket, n);
      req.resume();
      req.on('end', () => {
        if (n === 2) {
          req.socket.resetAndDestroy();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(defaultAnswer().body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const t = testRouter({ MAILSVC_CORE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    expect((await call(t.router, '/auth/login-code', { body: LOGIN })).status).toBe(200);
    const second = await call(t.router, '/auth/login-code', { body: LOGIN });
    t.router.close();
    server.closeAllConnections();
    server.close();
    expect(second.status, second.body).toBe(200);
    expect(requestsPerSocket.size).toBe(2);
  });
});

describe('core answers mapped to the caller', () => {
  it.each([
    [400, 'invalid_from_address'],
    [400, 'invalid_from_name'],
    [400, 'invalid_reply_to'],
    [400, 'invalid_template_data'],
    [402, 'trial_expired'],
    [403, 'recipient_complained'],
    [403, 'recipient_unsubscribed'],
    [403, 'recipient_suppressed'],
    [403, 'monthly_quota_exceeded'],
    [403, 'app_paused'],
    [403, 'app_blocked'],
    [403, 'from_domain_not_allowed'],
    [404, 'template_not_found'],
    [404, 'template_version_not_found'],
    [409, 'idempotency_key_reused'],
  ])('passes core %i %s through with the same status and code', async (status, code) => {
    stub.answer = () => coreError(status, code, { details: [{ path: '/from', message: 'x' }] });
    const res = await call(router, '/auth/login-code', { body: LOGIN });
    expect(res.status).toBe(status);
    expect(res.json().error).toMatchObject({
      code,
      message: `core says ${code}`,
      requestId: expect.stringMatching(/^req_/),
    });
    expect(res.json().error.requestId).not.toBe('req_CORE');
    expect(res.json().error.details).toEqual([{ path: '/from', message: 'x' }]);
  });

  it('passes core 429 rate_limited through with its Retry-After', async () => {
    stub.answer = () => ({ ...coreError(429, 'rate_limited'), headers: { 'retry-after': '7' } });
    const res = await call(router, '/auth/login-code', { body: LOGIN });
    expect([res.status, res.json().error.code, res.headers['Retry-After']]).toEqual([
      429,
      'rate_limited',
      '7',
    ]);
  });

  it.each([
    [401, 'missing_api_key'],
    [401, 'invalid_api_key'],
    [403, 'api_key_revoked'],
    [403, 'tenant_not_found'],
    [404, 'project_not_found'],
    [404, 'environment_not_found'],
  ])(
    'answers core %i %s (the server-held key or its scope) with 500 send_failed and an error log',
    async (status, code) => {
      stub.answer = () => coreError(status, code);
      const before = logs.lines.length;
      const res = await call(router, '/auth/login-code', { body: LOGIN });
      expect([res.status, res.json().error.code]).toEqual([500, 'send_failed']);
      expect(res.body).not.toContain(code);
      const line = logs.lines.slice(before).find((l) => l.includes('check MAILSVC_API_KEY'));
      expect(JSON.parse(line!)).toMatchObject({ level: 50, coreCode: code, coreStatus: status });
    },
  );

  it.each([
    [500, 'internal'],
    [503, 'service_unavailable'],
    [502, 'bad_gateway_from_a_proxy'],
    [404, 'not_found'],
    [415, 'unsupported_media_type'],
    [418, 'a_code_this_wrapper_does_not_know'],
  ])('answers core %i %s with 500 send_failed', async (status, code) => {
    stub.answer = () => coreError(status, code);
    const res = await call(router, '/auth/login-code', { body: LOGIN });
    expect([res.status, res.json().error.code]).toEqual([500, 'send_failed']);
  });

  it('answers a non-JSON core answer and a 200 without ok with 500 send_failed', async () => {
    stub.answer = () => ({ status: 502, raw: '<html>Bad gateway</html>' });
    expect((await call(router, '/auth/login-code', { body: LOGIN })).json().error.code).toBe('send_failed');
    stub.answer = () => ({ status: 200, raw: '{"ok":false}' });
    expect((await call(router, '/auth/login-code', { body: LOGIN })).json().error.code).toBe('send_failed');
  });

  it('answers a core that does not answer in time with 500 send_failed', async () => {
    stub.answer = () => ({ ...defaultAnswer(), delayMs: 1500 });
    const started = Date.now();
    const res = await call(router, '/auth/login-code', { body: LOGIN });
    expect([res.status, res.json().error.code]).toEqual([500, 'send_failed']);
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it('answers a core that cannot be reached with 500 send_failed', async () => {
    const t = testRouter({ MAILSVC_CORE_URL: 'http://127.0.0.1:1' });
    const res = await call(t.router, '/auth/login-code', { body: LOGIN });
    t.router.close();
    expect([res.status, res.json().error.code]).toEqual([500, 'send_failed']);
  });

  describe('Retry-After on send_failed: only when a retry is safe and may help', () => {
    const KEYED = { ...LOGIN, idempotencyKey: 'retry-after-1' };

    it('says Retry-After when the core is unavailable (its own Retry-After) or unreachable, and the request has an idempotencyKey', async () => {
      stub.answer = () => ({ ...coreError(503, 'service_unavailable'), headers: { 'retry-after': '3' } });
      const unavailable = await call(router, '/auth/login-code', { body: KEYED });
      expect([unavailable.status, unavailable.json().error.code, unavailable.headers['Retry-After']]).toEqual(
        [500, 'send_failed', '3'],
      );
      stub.answer = () => coreError(504, 'gateway_timeout');
      expect((await call(router, '/auth/login-code', { body: KEYED })).headers['Retry-After']).toBe('1');
      const t = testRouter({ MAILSVC_CORE_URL: 'http://127.0.0.1:1' });
      const unreachable = await call(t.router, '/auth/login-code', { body: KEYED });
      t.router.close();
      expect([unreachable.status, unreachable.headers['Retry-After']]).toEqual([500, '1']);
    });

    it('says no Retry-After without an idempotencyKey (a retry could send twice) or for a failure a retry cannot mend', async () => {
      stub.answer = () => ({ ...coreError(503, 'service_unavailable'), headers: { 'retry-after': '3' } });
      expect(
        (await call(router, '/auth/login-code', { body: LOGIN })).headers['Retry-After'],
      ).toBeUndefined();
      for (const [status, code] of [
        [500, 'internal'],
        [401, 'invalid_api_key'],
      ] as const) {
        stub.answer = () => coreError(status, code);
        const res = await call(router, '/auth/login-code', { body: KEYED });
        expect([res.json().error.code, res.headers['Retry-After']]).toEqual(['send_failed', undefined]);
      }
    });
  });

  it('never puts the API key in a response or a log line', () => {
    expect(logs.text()).not.toContain(API_KEY);
    expect(logs.text()).not.toContain('Jane@Example.com');
    expect(logs.text()).not.toContain('jane@example.com');
  });
});

describe('the core error table', () => {
  it('classifies every code of the core catalogue', () => {
    expect(Object.keys(coreErrorHandling).sort()).toEqual(Object.keys(errorCatalogue).sort());
  });

  it('passes through only 4xx codes', () => {
    for (const [code, handling] of Object.entries(coreErrorHandling)) {
      if (handling === 'pass')
        expect(errorCatalogue[code as keyof typeof errorCatalogue].status).toBeLessThan(500);
    }
  });
});
