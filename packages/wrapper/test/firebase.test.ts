// The Firebase function's handler called the way the Functions runtime calls it: an Express-like
// request with rawBody (the body may already be parsed) and a response with status/set/send. The
// entry around it (onRequest, firebase/index.ts) runs in the emulator: npm run test:firebase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, APP_ORIGIN, captureLogs, type StubCore, startStubCore } from './helpers.js';

type Handler = (req: unknown, res: unknown) => Promise<void> | void;
let stub: StubCore;
let handler: Handler;

beforeAll(async () => {
  stub = await startStubCore();
  // Settings are read at the first request, as on Firebase (the secret arrives as an env var).
  process.env.MAILSVC_API_KEY = API_KEY;
  process.env.MAILSVC_CORE_URL = stub.url;
  process.env.MAILSVC_ALLOWED_ORIGINS = APP_ORIGIN;
  // These tests are about forwarding, not about who may call.
  process.env.MAILSVC_ALLOW_ANONYMOUS = 'true';
  process.env.LOG_LEVEL = 'silent';
  handler = (await import('../src/firebase-handler.js')).createFirebaseHandler() as never;
});
afterAll(() => stub.close());

function invoke(
  opts: { path: string; headers?: Record<string, string>; body?: unknown; rawBody?: Buffer },
  fn: Handler = handler,
) {
  const headers = { 'content-type': 'application/json', ...opts.headers };
  const req = {
    method: 'POST',
    url: opts.path,
    originalUrl: opts.path,
    path: opts.path,
    headers,
    header: (n: string) => headers[n.toLowerCase() as keyof typeof headers],
    get: (n: string) => headers[n.toLowerCase() as keyof typeof headers],
    body: opts.body,
    rawBody: opts.rawBody,
    socket: { remoteAddress: '10.1.2.3' },
    ip: '6.6.6.6',
  };
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve) => {
    const out = { status: 200, headers: {} as Record<string, string>, body: '' };
    const res = {
      status(s: number) {
        out.status = s;
        return res;
      },
      set(h: Record<string, string>) {
        Object.assign(out.headers, h);
        return res;
      },
      json(b: unknown) {
        out.body = JSON.stringify(b);
        resolve(out);
        return res;
      },
      send(b: string) {
        out.body = b;
        resolve(out);
        return res;
      },
      on: () => res,
      setHeader: () => res,
      getHeader: () => undefined,
    };
    void fn(req, res);
  });
}

describe('the Firebase function', () => {
  it('forwards using rawBody, whatever body parser ran before', async () => {
    const raw = Buffer.from(JSON.stringify({ to: 'jane@example.com', data: { code: '1' } }));
    const res = await invoke({
      path: '/auth/login-code',
      headers: { origin: APP_ORIGIN },
      body: { parsed: 'differently' },
      rawBody: raw,
    });
    expect(res.status, res.body).toBe(200);
    expect(res.headers['Access-Control-Allow-Origin']).toBe(APP_ORIGIN);
    expect(stub.calls.at(-1)!.body).toMatchObject({ templateId: 'login-code', to: 'jane@example.com' });
  });

  it('refuses a foreign origin with 403 and sends nothing', async () => {
    const before = stub.calls.length;
    const res = await invoke({
      path: '/auth/login-code',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
      rawBody: Buffer.from('{}'),
    });
    expect(res.status).toBe(403);
    expect(stub.calls.length).toBe(before);
  });
});

describe('on Firebase without App Check', () => {
  const env = { MAILSVC_API_KEY: API_KEY, MAILSVC_CORE_URL: 'http://127.0.0.1:1', LOG_LEVEL: 'silent' };
  const login = {
    path: '/auth/login-code',
    rawBody: Buffer.from('{"to":"jane@example.com","data":{"code":"1"}}'),
  };

  it('answers 500 with the envelope and logs that App Check or MAILSVC_ALLOW_ANONYMOUS is needed', async () => {
    const { createFirebaseHandler } = await import('../src/firebase-handler.js');
    const logs = captureLogs();
    const before = stub.calls.length;
    const res = await invoke(login, createFirebaseHandler({ env: () => env, log: logs.log }) as Handler);
    expect(res.status).toBe(500);
    const body = JSON.parse(res.body);
    expect(body).toEqual({
      ok: false,
      error: { code: 'internal', message: expect.any(String), requestId: expect.stringMatching(/^req_/) },
    });
    expect(res.headers['X-Request-Id']).toBe(body.error.requestId);
    const line = JSON.parse(logs.lines.find((l) => l.includes('wrapper misconfigured'))!);
    expect(line.level).toBe(50);
    expect(JSON.stringify(line)).toContain('MAILSVC_REQUIRE_APP_CHECK=true');
    expect(JSON.stringify(line)).toContain('MAILSVC_ALLOW_ANONYMOUS=true');
    expect(logs.text()).not.toContain(API_KEY);
    expect(stub.calls.length).toBe(before);
  });

  it('serves once MAILSVC_ALLOW_ANONYMOUS=true says anonymous callers are accepted', async () => {
    const { createFirebaseHandler } = await import('../src/firebase-handler.js');
    const fn = createFirebaseHandler({
      env: () => ({ ...env, MAILSVC_CORE_URL: stub.url, MAILSVC_ALLOW_ANONYMOUS: 'true' }),
      log: captureLogs().log,
    }) as Handler;
    expect((await invoke(login, fn)).status).toBe(200);
  });
});
