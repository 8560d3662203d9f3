import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TokenBuckets } from '../src/rate-limit.js';
import { call, type StubCore, startStubCore, testRouter } from './helpers.js';

describe('TokenBuckets', () => {
  it('allows the burst, then refuses with the seconds until the next token, then refills', () => {
    let t = 0;
    const b = new TokenBuckets({ limit: 2, windowMs: 60_000, now: () => t });
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: false, retryAfterSeconds: 30 });
    expect(b.take('b')).toEqual({ ok: true });
    t = 30_000;
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a').ok).toBe(false);
  });

  it('keeps at most maxKeys keys, dropping the least recently used', () => {
    const b = new TokenBuckets({ limit: 1, windowMs: 60_000, maxKeys: 100, now: () => 0 });
    for (let i = 0; i < 1000; i++) b.take(`k${i}`);
    expect(b.size).toBe(100);
  });

  it('is off with a limit of 0', () => {
    const b = new TokenBuckets({ limit: 0, windowMs: 60_000 });
    for (let i = 0; i < 100; i++) expect(b.take('a').ok).toBe(true);
  });
});

describe('the router', () => {
  let stub: StubCore;
  beforeAll(async () => {
    stub = await startStubCore();
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.calls.length = 0;
  });
  const LOGIN = { to: 'jane@example.com', data: { code: '482913' } };

  it('refuses a client IP over its limit with 429 rate_limited and Retry-After, and sends nothing', async () => {
    const { router } = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 2 });
    const ip = '198.51.100.1';
    for (let i = 0; i < 2; i++)
      expect(
        (await call(router, '/auth/login-code', { body: { ...LOGIN, to: `u${i}@example.com` }, ip })).status,
      ).toBe(200);
    const res = await call(router, '/auth/login-code', { body: LOGIN, ip });
    expect([res.status, res.json().error.code, res.headers['Retry-After']]).toEqual([
      429,
      'rate_limited',
      '30',
    ]);
    expect(stub.calls).toHaveLength(2);
    expect((await call(router, '/auth/login-code', { body: LOGIN, ip: '198.51.100.2' })).status).toBe(200);
    router.close();
  });

  it('refuses a recipient over its limit whatever the IP, counting addresses case-insensitively', async () => {
    const { router } = testRouter({
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 2,
    });
    expect((await call(router, '/auth/login-code', { body: LOGIN, ip: '192.0.2.1' })).status).toBe(200);
    expect(
      (
        await call(router, '/auth/login-code', {
          body: { ...LOGIN, to: 'JANE@example.com' },
          ip: '192.0.2.2',
        })
      ).status,
    ).toBe(200);
    const res = await call(router, '/auth/login-code', { body: LOGIN, ip: '192.0.2.3' });
    expect([res.status, res.json().error.code]).toEqual([429, 'rate_limited']);
    expect(Number(res.headers['Retry-After'])).toBe(1800);
    expect(stub.calls).toHaveLength(2);
    router.close();
  });

  it('does not count invalid requests against the recipient', async () => {
    const { router } = testRouter({
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 1,
    });
    for (let i = 0; i < 3; i++)
      await call(router, '/auth/login-code', { body: { to: 'jane@example.com', data: {} } });
    expect((await call(router, '/auth/login-code', { body: LOGIN })).status).toBe(200);
    router.close();
  });
});
