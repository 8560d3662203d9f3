// A whole session of requests — sends good and bad, keys right and wrong, unsubscribe links in
// every spelling, a database error that quotes a value, a delivery — and then the whole log is
// scanned for every address, key and token that was used: none may appear in clear.
import path from 'node:path';
import {
  ADMIN_TOKEN,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { captureTransport } from '../src/delivery/transports/capture.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { createUnsubscribeToken, SUBSCRIPTION_SCOPE } from '../src/domain/consent/unsubscribe-token.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

it('never logs an address, an API key, an admin token or an unsubscribe token, whatever the request', async () => {
  const addresses = ['alice.liddell@example.com', 'bob.builder@example.org', 'carol.danvers@example.net'];
  const [alice, bob, carol] = addresses as [string, string, string];
  const token = createUnsubscribeToken(h.runtime.deps.keys.unsubscribe, {
    environmentId: s.environmentId,
    email: carol,
    scope: SUBSCRIPTION_SCOPE,
  });
  const json = { 'content-type': 'application/json' };
  const send = (body: unknown, headers: Record<string, string> = bearer(s.apiKey)) =>
    h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...headers, ...json },
      payload: JSON.stringify(body),
    });

  // Sends: accepted, replayed, refused for its data, its address, its key.
  await send({ templateId: 'login-code', to: alice, data: { code: '111111' } });
  await send({ templateId: 'mention', to: carol, data: {} });
  for (let i = 0; i < 2; i++) {
    await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), ...json, 'idempotency-key': 'log-scan-1' },
      payload: JSON.stringify({ templateId: 'login-code', to: bob, data: { code: '222222' } }),
    });
  }
  await send({ templateId: 'login-code', to: bob, data: { code: 'x\u0000' } });
  await send({ templateId: 'login-code', to: `${bob}\r\nBcc: ${alice}`, data: { code: '1' } });
  await send(
    { templateId: 'login-code', to: alice, data: { code: '1' } },
    bearer(`${s.apiKey.slice(0, -1)}Q`),
  );
  await send(
    { templateId: 'login-code', to: alice, data: { code: '1' } },
    { authorization: `Basic ${s.apiKey}` },
  );
  await h.request({ method: 'GET', url: `/v1/quota?api_key=${s.apiKey}&to=${alice}` });
  await h.request({
    method: 'POST',
    url: '/admin/v1/domains/list',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}x` },
  });

  // The unsubscribe link, as sent and in every spelling that reaches (or misses) the route.
  for (const url of [
    `/u/${token}`,
    `/%75/${token}`,
    `//u/${token}`,
    `/u//${token}`,
    `/U/${token}`,
    `/u/./${token}`,
    `/u/${token}/extra`,
    `/u/${token}?email=${carol}`,
  ]) {
    await h.request({ method: 'GET', url });
    await h.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
  }

  // A database error whose message quotes a value.
  const app = await buildApp(h.runtime.deps, {
    extraRoutes: [
      (a) =>
        a.get('/boom-db', async () => {
          await sql`SELECT ${bob}::integer`.execute(h.runtime.deps.db);
        }),
    ],
  });
  const boom = await app.inject({ method: 'GET', url: '/boom-db' });
  await app.close();
  expect(boom.statusCode).toBe(500);

  // Delivery of what was accepted (capture transport).
  const worker = new DeliveryWorker(h.runtime.deps, captureTransport(path.join(h.dataDir, 'inbox')), {
    concurrency: 4,
    leaseMs: 60_000,
    pollMs: 60_000,
  });
  expect(await worker.drain()).toBeGreaterThan(0);

  const logs = h.logs.join('');
  for (const secret of [
    ...addresses,
    ...addresses.map((a) => a.split('@')[0]!),
    s.apiKey,
    s.apiKey.split('_')[2]!,
    ADMIN_TOKEN,
    token,
    ...token.split('.').filter((part) => part.length >= 8),
  ]) {
    expect(logs, secret).not.toContain(secret);
  }
  // What the log does carry: masked addresses, the matched route, the database error's code.
  expect(logs).toContain('a***@example.com');
  expect(logs).toContain('"path":"/u/*"');
  expect(logs).toContain('database error 22P02');
});
