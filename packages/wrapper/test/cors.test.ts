// CORS by exact origin, checked before anything else; a refused origin sends nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ORIGIN, call, type Router, type StubCore, startStubCore, testRouter } from './helpers.js';

let stub: StubCore;
let router: Router;

beforeAll(async () => {
  stub = await startStubCore();
  ({ router } = testRouter({
    MAILSVC_CORE_URL: stub.url,
    MAILSVC_ALLOWED_ORIGINS: `${APP_ORIGIN}, http://localhost:5173`,
  }));
});
afterAll(async () => {
  await router.close();
  await stub.close();
});
beforeEach(() => {
  stub.calls.length = 0;
});

const LOGIN = { to: 'jane@example.com', data: { code: '482913' } };

describe('an allowed origin', () => {
  it('gets the send and Access-Control-Allow-Origin for exactly that origin', async () => {
    const res = await call(router, '/auth/login-code', { body: LOGIN, headers: { Origin: APP_ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers['Access-Control-Allow-Origin']).toBe(APP_ORIGIN);
    expect(res.headers.Vary).toContain('Origin');
    expect(res.headers['Access-Control-Expose-Headers']).toContain('X-Request-Id');
    expect(stub.calls).toHaveLength(1);
  });

  it('gets a preflight answer listing POST and the App Check header', async () => {
    const res = await call(router, '/auth/login-code', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, x-firebase-appcheck',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'http://localhost:5173',
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'Content-Type, X-Firebase-AppCheck',
    });
    expect(res.headers['Access-Control-Allow-Origin']).not.toBe('*');
    expect(stub.calls).toHaveLength(0);
  });

  it('gets 404 for a preflight to an unknown path', async () => {
    const res = await call(router, '/nope', {
      method: 'OPTIONS',
      headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(404);
  });
});

describe('an origin that is not listed', () => {
  it.each([
    ['https://evil.example'],
    ['null'],
    ['https://app.example.com.evil.example'],
    ['http://app.example.com'],
    ['https://app.example.com:8443'],
    ['HTTPS://APP.EXAMPLE.COM'],
  ])('refuses Origin %s with 403 origin_not_allowed and sends nothing', async (origin) => {
    const res = await call(router, '/auth/login-code', { body: LOGIN, headers: { Origin: origin } });
    expect(res.status).toBe(403);
    expect(res.json().error.code).toBe('origin_not_allowed');
    expect(res.headers['Access-Control-Allow-Origin']).toBeUndefined();
    expect(stub.calls).toHaveLength(0);
  });

  it('refuses a text/plain POST (no preflight needed) with 403 origin_not_allowed before 415, and sends nothing', async () => {
    const res = await call(router, '/auth/login-code', {
      raw: JSON.stringify(LOGIN),
      headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain;charset=UTF-8' },
    });
    expect([res.status, res.json().error.code]).toEqual([403, 'origin_not_allowed']);
    expect(stub.calls).toHaveLength(0);
  });

  it('refuses its preflight with 403 and no CORS headers', async () => {
    const res = await call(router, '/auth/login-code', {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(403);
    expect(res.headers['Access-Control-Allow-Origin']).toBeUndefined();
    expect(res.headers['Access-Control-Allow-Methods']).toBeUndefined();
  });
});

describe('a request without Origin (a server, curl)', () => {
  it('is sent, with no Access-Control-Allow-Origin', async () => {
    const res = await call(router, '/auth/login-code', { body: LOGIN });
    expect(res.status).toBe(200);
    expect(res.headers['Access-Control-Allow-Origin']).toBeUndefined();
    expect(stub.calls).toHaveLength(1);
  });

  it('a text/plain POST from an allowed origin gets 415 and sends nothing', async () => {
    const res = await call(router, '/auth/login-code', {
      raw: JSON.stringify(LOGIN),
      headers: { Origin: APP_ORIGIN, 'Content-Type': 'text/plain' },
    });
    expect([res.status, res.json().error.code]).toEqual([415, 'unsupported_media_type']);
    expect(stub.calls).toHaveLength(0);
  });
});

describe('with no origins configured', () => {
  it('refuses every browser origin', async () => {
    const t = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_ALLOWED_ORIGINS: '' });
    const res = await call(t.router, '/auth/login-code', { body: LOGIN, headers: { Origin: APP_ORIGIN } });
    await t.router.close();
    expect(res.json().error.code).toBe('origin_not_allowed');
    expect(stub.calls).toHaveLength(0);
  });
});
