// Rate limits of the core API (DESIGN.md §2): per API key from its plan, failed authentication per
// client IP, per process by default and shared by every replica through Redis.
import { randomUUID } from 'node:crypto';
import { redisRateLimitStore } from '@mailsvc/contract/rate-limit';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { AuthFailureLimiter } from '../src/domain/auth/rate-limit.js';
import type { Deps } from '../src/domain/deps.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_AUTH_FAILURE_LIMIT_PER_MINUTE: '5' } });
});
afterAll(() => h.close());

/** A scope whose plan allows `perSecond` requests per second and `burst` at once. */
async function limitedScope(perSecond: number, burst: number): Promise<Scope> {
  const s = await seedScope(h);
  await h.admin('plans.update', { id: s.planId, rateLimitPerSecond: perSecond, rateLimitBurst: burst });
  return s;
}

const quota = (apiKey: string, remoteAddress = '127.0.0.1', app = h.app) =>
  app.inject({ method: 'GET', url: '/v1/quota', headers: bearer(apiKey), remoteAddress });

describe('per API key, from its plan', () => {
  // Requests of one test go out at once (Promise.all): they reach the limiter within
  // milliseconds, well inside its 1-second window even on a loaded machine.
  it('answers 429 rate_limited with Retry-After and the RateLimit headers once a key is over its rate and burst', async () => {
    const s = await limitedScope(2, 4);
    const answers = await Promise.all(Array.from({ length: 6 }, () => quota(s.apiKey)));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(4);
    expect(codes.filter((c) => c === 429)).toHaveLength(2);
    const refused = answers.find((r) => r.statusCode === 429)!;
    expect(refused.json().error).toMatchObject({
      code: 'rate_limited',
      requestId: refused.headers['x-request-id'],
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-policy']).toBe('"api-key";q=2;w=1, "api-key-burst";q=2;w=10');
    expect(refused.headers.ratelimit).toMatch(/^"api-key";r=0;t=\d+$/);
    // Successful answers say where the key stands too.
    const accepted = answers.filter((r) => r.statusCode === 200).map((r) => r.headers.ratelimit);
    expect(accepted).toContain('"api-key";r=1;t=1');
  });

  it("limits each key on its own: another tenant's key is not slowed", async () => {
    const busy = await limitedScope(1, 1);
    const other = await limitedScope(1, 1);
    const [a, b, c] = await Promise.all([quota(busy.apiKey), quota(busy.apiKey), quota(other.apiKey)]);
    expect([a!.statusCode, b!.statusCode].sort()).toEqual([200, 429]);
    expect(c!.statusCode).toBe(200);
  });

  it('refuses a send over the limit with 429, and accepts nothing for it', async () => {
    const s = await limitedScope(1, 1);
    const send = (to: string) =>
      h.request({
        method: 'POST',
        url: '/v1/send',
        headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
        payload: JSON.stringify({ templateId: 'login-code', to, data: { code: '1' } }),
      });
    const answers = await Promise.all([send('a@example.com'), send('b@example.com')]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 429]);
    expect(answers.find((r) => r.statusCode === 429)!.json().error.code).toBe('rate_limited');
    const rows = await h.runtime.deps.db
      .selectFrom('messages')
      .select('id')
      .where('environment_id', '=', s.environmentId)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses a plan whose burst is below its rate', async () => {
    const s = await seedScope(h);
    await expect(
      h.admin('plans.update', { id: s.planId, rateLimitPerSecond: 50, rateLimitBurst: 10 }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('failed authentication, per client IP', () => {
  it('answers 429 after 5 wrong keys a minute from one client, while its right key still works and other clients are not affected', async () => {
    const s = await seedScope(h);
    const wrong = `${s.apiKey.slice(0, -1)}${s.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const ip = '203.0.113.7';
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push((await quota(wrong, ip)).statusCode);
    expect(answers).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const blocked = await quota(wrong, ip);
    expect(blocked.json().error.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(blocked.headers['ratelimit-policy']).toBe('"auth-failures";q=5;w=60');
    // The right key still works from that address (a shared NAT must not lock its users out).
    expect((await quota(s.apiKey, ip)).statusCode).toBe(200);
    expect((await quota(wrong, '198.51.100.1')).statusCode).toBe(401);
    // IPv6: one /64 is one client.
    for (let i = 0; i < 5; i++) await quota(wrong, `2001:db8:7:7::${i + 1}`);
    expect((await quota(wrong, '2001:db8:7:7::ffff')).statusCode).toBe(429);
  });

  it('counts the client behind a trusted proxy by the address the proxy appended, not one the client wrote', async () => {
    const s = await seedScope(h);
    const wrong = `${s.apiKey.slice(0, -1)}${s.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const config = { ...h.runtime.deps.config, MAILSVC_TRUST_PROXY: true };
    const app = await buildApp({ ...h.runtime.deps, config }, {});
    try {
      const codes = [];
      for (let i = 0; i < 7; i++) {
        const res = await app.inject({
          method: 'GET',
          url: '/v1/quota',
          remoteAddress: '10.0.0.2', // the proxy
          headers: { ...bearer(wrong), 'x-forwarded-for': `192.0.2.${i}, 203.0.113.99` },
        });
        codes.push(res.statusCode);
      }
      expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    } finally {
      await app.close();
    }
  });

  it('looks an unknown key id up once, not once per attempt (a negative cache)', async () => {
    let lookups = 0;
    const counting = new Proxy(h.runtime.deps.db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'selectFrom') return value;
        return (table: string) => {
          if (table === 'api_keys as k') lookups++;
          return value.call(target, table);
        };
      },
    });
    const deps: Deps = {
      ...h.runtime.deps,
      db: counting,
      authFailures: new AuthFailureLimiter(h.runtime.deps.rateLimits, 0),
    };
    const app = await buildApp(deps, {});
    const unknown = `msk_01M80000000000000000000000_${'x'.repeat(43)}`;
    for (let i = 0; i < 20; i++) expect((await quota(unknown, '192.0.2.9', app)).statusCode).toBe(401);
    await app.close();
    expect(lookups).toBe(1);
  });
});

// Shared through Redis: runs when TEST_REDIS_URL is set (CI; then Redis must answer) or when a
// Redis answers on 127.0.0.1:6379, and is skipped on a laptop without one.
async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
const REDIS_URL =
  process.env.TEST_REDIS_URL ||
  ((await redisAnswers('redis://127.0.0.1:6379')) ? 'redis://127.0.0.1:6379' : undefined);

describe.skipIf(!REDIS_URL)('shared by every replica through Redis (MAILSVC_REDIS_URL)', () => {
  it('counts one limit across two API processes', async () => {
    expect(await redisAnswers(REDIS_URL!), `Redis at ${REDIS_URL} does not answer`).toBe(true);
    const prefix = `mailsvc-test:${randomUUID()}`;
    const s = await limitedScope(2, 2);
    const replicas: {
      rateLimits: ReturnType<typeof redisRateLimitStore>;
      app: Awaited<ReturnType<typeof buildApp>>;
    }[] = [];
    for (let i = 0; i < 2; i++) {
      const rateLimits = redisRateLimitStore(REDIS_URL!, { log: h.runtime.deps.log, prefix });
      expect(await rateLimits.ready(5000)).toBe(true);
      replicas.push({ rateLimits, app: await buildApp({ ...h.runtime.deps, rateLimits }, {}) });
    }
    try {
      // at once, two to each replica: one after another, a loaded machine (CI at 9f25cb2) could
      // take over half a second between them, and the limit (2/s) would rightly refill a token
      const answers = await Promise.all(
        [0, 1, 2, 3].map((i) => quota(s.apiKey, '127.0.0.1', replicas[i % 2]!.app)),
      );
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 429, 429]);
    } finally {
      for (const r of replicas) {
        await r.app.close();
        await r.rateLimits.close();
      }
    }
  });

  it('falls back to per-process limits when Redis cannot be reached, and says so in the log once', async () => {
    const s = await limitedScope(1, 1);
    const logs: string[] = [];
    const log = {
      warn: (_o: object, msg: string) => logs.push(msg),
      info: (_o: object, msg: string) => logs.push(msg),
    };
    const rateLimits = redisRateLimitStore('redis://:secret-password@127.0.0.1:1', {
      log,
      prefix: 'unreachable',
    });
    const app = await buildApp({ ...h.runtime.deps, rateLimits }, {});
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect((await quota(s.apiKey, '127.0.0.1', app)).statusCode).toBe(200);
      expect((await quota(s.apiKey, '127.0.0.1', app)).statusCode).toBe(429);
      expect(logs.filter((m) => m.includes('Redis is unreachable'))).toHaveLength(1);
      expect(logs.join('')).not.toContain('secret-password');
    } finally {
      await app.close();
      await rateLimits.close();
    }
  });
});
