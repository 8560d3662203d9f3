// Per-IP and per-recipient limits: fixed windows (60 s and 3600 s) from the contract's rate-limit
// store, in process by default, shared through Redis with MAILSVC_REDIS_URL.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recipientLimitKey } from '../src/router.js';
import { call, type StubCore, startStubCore, testRouter } from './helpers.js';

let stub: StubCore;
beforeAll(async () => {
  stub = await startStubCore();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.calls.length = 0;
});

const LOGIN = { to: 'jane@example.com', data: { code: '482913' } };
const send = (router: ReturnType<typeof testRouter>['router'], ip: string, to = LOGIN.to) =>
  call(router, '/auth/login-code', { body: { ...LOGIN, to }, ip });

describe('the per-IP limit (MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE)', () => {
  it('refuses the request over the limit with 429 rate_limited, Retry-After and RateLimit headers, and sends nothing', async () => {
    const { router } = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 2 });
    const ip = '198.51.100.1';
    for (let i = 0; i < 2; i++) expect((await send(router, ip, `u${i}@example.com`)).status).toBe(200);
    const res = await send(router, ip);
    expect([res.status, res.json().error.code]).toEqual([429, 'rate_limited']);
    const retryAfter = Number(res.headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers['RateLimit-Policy']).toBe('"per-ip";q=2;w=60');
    expect(res.headers.RateLimit).toBe(`"per-ip";r=0;t=${retryAfter}`);
    expect(stub.calls).toHaveLength(2);
    expect((await send(router, '198.51.100.2')).status).toBe(200);
    router.close();
  });

  it('is off with a limit of 0', async () => {
    const { router } = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 0 });
    for (let i = 0; i < 20; i++)
      expect((await send(router, '198.51.100.3', `n${i}@example.com`)).status).toBe(200);
    router.close();
  });
});

describe('the per-recipient limit (MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR)', () => {
  it('refuses a recipient over its limit whatever the IP, with the hour window in its headers', async () => {
    const { router } = testRouter({
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 2,
    });
    expect((await send(router, '192.0.2.1')).status).toBe(200);
    expect((await send(router, '192.0.2.2', 'JANE@example.com')).status).toBe(200);
    const res = await send(router, '192.0.2.3');
    expect([res.status, res.json().error.code]).toEqual([429, 'rate_limited']);
    expect(Number(res.headers['Retry-After'])).toBeGreaterThan(3500);
    expect(res.headers['RateLimit-Policy']).toBe('"per-recipient";q=2;w=3600');
    expect(stub.calls).toHaveLength(2);
    router.close();
  });

  it('counts Jane+x@Example.com and jane@example.com in one bucket', async () => {
    const { router } = testRouter({
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 1,
    });
    expect((await send(router, '192.0.2.1', 'Jane+x@Example.com')).status).toBe(200);
    const res = await send(router, '192.0.2.2', 'jane@example.com');
    expect([res.status, res.json().error.code]).toEqual([429, 'rate_limited']);
    const tagged = await send(router, '192.0.2.3', 'JANE+newsletter@example.COM');
    expect(tagged.status).toBe(429);
    expect((await send(router, '192.0.2.4', 'jane.doe@example.com')).status).toBe(200);
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

describe('recipientLimitKey', () => {
  it.each([
    ['jane@example.com', 'jane@example.com'],
    ['Jane+x@Example.com', 'jane@example.com'],
    ['jane+a+b@example.com', 'jane@example.com'],
    ['+tag@example.com', '+tag@example.com'],
    ['jane.doe@example.com', 'jane.doe@example.com'],
    ['jane@Bücher.example', 'jane@xn--bcher-kva.example'],
  ])('counts %s as %s', (address, key) => {
    expect(recipientLimitKey(address)).toBe(key);
  });
});

// ── Redis ────────────────────────────────────────────────────────────────────────────────────────
// Runs when TEST_REDIS_URL is set (CI: then Redis must answer) or when a Redis answers on
// 127.0.0.1:6379; skipped on a laptop without one.

/** One RESP command over a fresh connection, then QUIT; resolves with the raw replies. */
function redisCommand(url: string, ...args: string[]): Promise<string> {
  const u = new URL(url);
  const auth = u.password
    ? [['AUTH', ...(u.username ? [decodeURIComponent(u.username)] : []), decodeURIComponent(u.password)]]
    : [];
  const encode = (a: string[]) =>
    `*${a.length}\r\n${a.map((s) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port || 6379), u.hostname);
    let out = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('Redis did not answer in 2 s')));
    socket.on('connect', () => socket.write([...auth, args, ['QUIT']].map(encode).join('')));
    socket.on('data', (c) => {
      out += c;
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

async function redisAnswers(url: string): Promise<boolean> {
  try {
    return (await redisCommand(url, 'PING')).includes('PONG');
  } catch {
    return false;
  }
}

const REDIS_URL =
  process.env.TEST_REDIS_URL ||
  ((await redisAnswers('redis://127.0.0.1:6379')) ? 'redis://127.0.0.1:6379' : undefined);

describe.skipIf(!REDIS_URL)('limits shared through Redis (MAILSVC_REDIS_URL)', () => {
  const url = REDIS_URL!;
  const prefix = `mailsvc-test:${randomUUID()}`;

  // In each test, not in a hook, so that with TEST_REDIS_URL set and no Redis each test fails.
  const requireRedis = async () =>
    expect(await redisAnswers(url), `Redis at ${new URL(url).host} does not answer`).toBe(true);
  afterAll(async () => {
    if (!(await redisAnswers(url))) return;
    const keys = (await redisCommand(url, 'KEYS', `${prefix}:*`))
      .split('\r\n')
      .filter((l) => l.startsWith(prefix));
    if (keys.length > 0) await redisCommand(url, 'DEL', ...keys);
  });

  /** Sends until one request is counted in Redis (the client connects in the background). */
  async function untilCountedInRedis(router: ReturnType<typeof testRouter>['router']) {
    for (let i = 0; i < 100; i++) {
      const probe = `203.0.113.${i}-${randomUUID()}`;
      await call(router, '/auth/login-code', { body: {}, ip: probe });
      if ((await redisCommand(url, 'EXISTS', `${prefix}:per-ip:2/60:main:${probe}`)).match(/(^|\r\n):1\r\n/))
        return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the router never counted in Redis');
  }

  it('two instances on one Redis share one per-IP limit', async () => {
    await requireRedis();
    const settings = {
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 2,
      MAILSVC_REDIS_URL: url,
    };
    const a = testRouter(settings, { rateLimitPrefix: prefix });
    const b = testRouter(settings, { rateLimitPrefix: prefix });
    try {
      await untilCountedInRedis(a.router);
      await untilCountedInRedis(b.router);
      const ip = `198.51.100.10-${randomUUID()}`;
      expect((await send(a.router, ip, 'r1@example.com')).status).toBe(200);
      expect((await send(b.router, ip, 'r2@example.com')).status).toBe(200);
      const third = await send(a.router, ip, 'r3@example.com');
      const fourth = await send(b.router, ip, 'r4@example.com');
      expect([third.status, fourth.status]).toEqual([429, 429]);
      expect(stub.calls).toHaveLength(2);
    } finally {
      await a.router.close();
      await b.router.close();
    }
  });

  it('two instances on one Redis share one per-recipient limit, +tags folded', async () => {
    await requireRedis();
    const settings = {
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 2,
      MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 1,
      MAILSVC_REDIS_URL: url,
    };
    const a = testRouter(settings, { rateLimitPrefix: prefix });
    const b = testRouter(settings, { rateLimitPrefix: prefix });
    try {
      await untilCountedInRedis(a.router);
      await untilCountedInRedis(b.router);
      const to = `shared-${randomUUID().slice(0, 8)}@example.com`;
      expect((await send(a.router, '192.0.2.50', to)).status).toBe(200);
      const res = await send(b.router, '192.0.2.51', to.replace('@', '+x@').toUpperCase());
      expect([res.status, res.headers['RateLimit-Policy']]).toEqual([429, '"per-recipient";q=1;w=3600']);
    } finally {
      await a.router.close();
      await b.router.close();
    }
  });
});

describe('a Redis that cannot be reached', () => {
  it('still enforces the limits per process and logs the fallback once, without the password', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const { router, logs } = testRouter({
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 2,
      MAILSVC_REDIS_URL: `redis://:hunter2-secret@127.0.0.1:${closedPort}`,
    });
    try {
      const ip = '198.51.100.20';
      expect((await send(router, ip, 'a1@example.com')).status).toBe(200);
      expect((await send(router, ip, 'a2@example.com')).status).toBe(200);
      expect((await send(router, ip, 'a3@example.com')).status).toBe(429);
      const fallback = () => logs.lines.filter((l) => l.includes('Redis is unreachable'));
      for (let i = 0; i < 100 && fallback().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      // More requests while it stays down, and time for reconnection attempts: still one line.
      for (let i = 0; i < 5; i++) await send(router, '198.51.100.21', `b${i}@example.com`);
      await new Promise((r) => setTimeout(r, 300));
      expect(fallback()).toHaveLength(1);
      expect(logs.text()).not.toContain('hunter2-secret');
    } finally {
      await router.close();
    }
  });
});
