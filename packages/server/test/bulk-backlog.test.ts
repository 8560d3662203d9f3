// At scale, on PostgreSQL: a login code sent while 100,000 bulk messages wait reaches the sink on
// the worker's next pick-up (priority, DESIGN.md §7). PostgreSQL only (CI's PostgreSQL pass): it
// takes 10–30 s to queue, and its subject is the production store under a backlog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpTransport } from '../src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { seedManyContacts } from './bulk-helpers.js';
import { backend, bearer, createHarness, type Harness, type Scope, seedScope } from './harness.js';
import { type SmtpSink, startSmtpSink } from './smtp-sink.js';

let h: Harness;
let s: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let transport: ReturnType<typeof smtpTransport>;
const MINUTE = 60_000;

beforeAll(async () => {
  if (backend !== 'postgres') return;
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 200_000 });
  sink = await startSmtpSink();
  transport = smtpTransport({ url: sink.url, poolSize: 2 });
  worker = new DeliveryWorker(h.runtime.deps, transport, {
    concurrency: 8,
    leaseMs: 5 * MINUTE,
    pollMs: 60 * MINUTE,
  });
});
afterAll(async () => {
  await worker?.stop();
  await transport?.close();
  await sink?.close();
  await h?.close();
});

const post = (url: string, body: unknown) =>
  h.request({
    method: 'POST',
    url,
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

describe.runIf(backend === 'postgres')('a bulk backlog', () => {
  it('a login code sent while 100,000 bulk messages wait reaches the sink on the next pick-up', async () => {
    await seedManyContacts(h, s.tenantId, 100_000, 'crowd', 'crowd');
    const started = Date.now();
    const res = await post('/v1/contacts/send', {
      projectId: s.projectId,
      environmentId: s.environmentId,
      templateId: 'mention',
      templateData: {},
      groupSlug: 'crowd',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().queued).toBe(100_000);
    const queuedMs = Date.now() - started;

    const login = await post('/v1/send', {
      templateId: 'login-code',
      to: 'urgent@example.com',
      data: { code: '424242' },
    });
    expect(login.statusCode).toBe(200);
    const before = sink.received.length;
    await worker.runOnce();
    const delivered = sink.received.slice(before);
    // One pick-up of 8: the login code goes first, bulk messages fill the rest of the batch.
    expect(delivered.some((r) => r.rcptTo.includes('urgent@example.com'))).toBe(true);
    expect(
      delivered.filter((r) => r.rcptTo.some((to) => to.startsWith('crowd-'))).length,
    ).toBeLessThanOrEqual(7);
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select('status')
      .where('id', '=', login.json().messageId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('sent');
    console.info(`100,000 bulk messages queued in ${queuedMs} ms; login code delivered on the first pick-up`);
  }, 180_000);
});
