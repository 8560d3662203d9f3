// PostgreSQL going away under a running API and worker (a proxy between them and the server is
// stopped and started again): nothing crashes, requests answer 503 service_unavailable while it
// is gone, /readyz says so, and both recover by themselves once it is back.

import {
  backend,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { type SmtpSink, startSmtpSink } from '@mailsvc/testkit/smtp-sink';
import { startTcpProxy, type TcpProxy } from '@mailsvc/testkit/tcp-proxy';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpTransport } from '../src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { createUnsubscribeToken, SUBSCRIPTION_SCOPE } from '../src/domain/consent/unsubscribe-token.js';

describe.skipIf(backend !== 'postgres')('the database going away and coming back (PostgreSQL)', () => {
  let proxy: TcpProxy;
  let h: Harness;
  let s: Scope;
  let sink: SmtpSink;
  let transport: ReturnType<typeof smtpTransport>;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    const base = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await startTcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
    h = await createHarness({
      connectVia: (url) => {
        const u = new URL(url);
        u.hostname = '127.0.0.1';
        u.port = String(proxy.port);
        return u.toString();
      },
      // The key lookup is cached 2 s by default: fetch it from the database on every request.
      env: { MAILSVC_AUTH_CACHE_TTL_MS: '0' },
    });
    h.clock.set(new Date());
    s = await seedScope(h);
    sink = await startSmtpSink();
    transport = smtpTransport({ url: sink.url, poolSize: 2 });
    worker = new DeliveryWorker(h.runtime.deps, transport, { concurrency: 4, leaseMs: 60_000, pollMs: 200 });
    worker.start();
  });
  afterAll(async () => {
    await proxy.start().catch(() => {});
    await worker.stop();
    await transport.close();
    await sink.close();
    await h.close();
    await proxy.close();
  });

  const send = (to: string) =>
    h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': 'application/json', 'idempotency-key': `outage-${to}` },
      payload: JSON.stringify({ templateId: 'login-code', to, data: { code: '123456' } }),
    });
  const delivered = (to: string) => sink.received.some((m) => m.rcptTo.includes(to));
  const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('answers 503 service_unavailable while it is gone and recovers by itself when it is back', async () => {
    const before = await send('before@example.com');
    expect(before.statusCode, before.body).toBe(200);
    await until('the message accepted before the outage to be delivered', () =>
      delivered('before@example.com'),
    );

    // A query in flight when the server goes: its checked-out client errors (this crashed the
    // process before: no 'error' listener on checked-out clients).
    const inFlight = sql`SELECT pg_sleep(5)`.execute(h.runtime.deps.db);
    await new Promise((r) => setTimeout(r, 200));
    await proxy.stop();
    await expect(inFlight).rejects.toThrow();

    const during = await send('during@example.com');
    expect(during.statusCode, during.body).toBe(503);
    expect(during.json().error.code).toBe('service_unavailable');
    expect(during.headers['retry-after']).toBe('1');
    expect(during.headers['x-request-id']).toBe(during.json().error.requestId);
    const quota = await h.request({ method: 'GET', url: '/v1/quota', headers: bearer(s.apiKey) });
    expect(quota.statusCode).toBe(503);
    const ready = await h.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.code).toBe('service_unavailable');
    // A one-click unsubscribe from a mailbox provider meanwhile: 503 (retry later), not 500.
    const token = createUnsubscribeToken(h.runtime.deps.keys.unsubscribe, {
      environmentId: s.environmentId,
      email: 'during@example.com',
      scope: SUBSCRIPTION_SCOPE,
    });
    const unsubscribe = await h.request({
      method: 'POST',
      url: `/u/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribe.statusCode).toBe(503);
    expect(unsubscribe.headers['retry-after']).toBe('1');
    // The worker keeps polling without crashing meanwhile.
    await new Promise((r) => setTimeout(r, 600));

    const backAt = Date.now();
    await proxy.start();
    let retried = await send('during@example.com');
    await until('a send to be accepted again', async () => {
      if (retried.statusCode === 200) return true;
      retried = await send('during@example.com');
      return retried.statusCode === 200;
    });
    expect(Date.now() - backAt).toBeLessThan(10_000);
    expect((await h.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await until('the message accepted after the outage to be delivered', () =>
      delivered('during@example.com'),
    );
    expect(sink.received.filter((m) => m.rcptTo.includes('during@example.com'))).toHaveLength(1);
    // Nothing logged a 500 for it.
    expect(h.logs.join('')).not.toContain('"statusCode":500');
  });
});
