// GET /metrics: Prometheus text whose values move as messages are accepted and delivered, and
// which only this machine (or a scraper with MAILSVC_METRICS_TOKEN) may read.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { startSinkWorker } from '@mailsvc/testkit/smtp-sink';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThroughputLog } from '../src/delivery/throughput-log.js';
import type { DeliveryWorker } from '../src/delivery/worker.js';

let h: Harness;
let s: Scope;
let worker: DeliveryWorker;
let rig: Awaited<ReturnType<typeof startSinkWorker>>;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  rig = await startSinkWorker(h.runtime.deps);
  ({ worker } = rig);
});
afterAll(async () => {
  await rig.close();
  await h.close();
});

async function scrape(): Promise<string> {
  const res = await h.request({ method: 'GET', url: '/metrics' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

/** The value of one sample, 0 when absent. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{([^}]*)\}/.exec(line)?.[1] ?? '';
    if (want.every((w) => labelText.split(',').includes(w))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

const send = (body: Record<string, unknown>) =>
  h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

describe('GET /metrics', () => {
  it('counts every answer of POST /v1/send, also the refusals made before its handler (401, 415, 413, 400)', async () => {
    const before = await scrape();
    const count = (t: string, result: string) => value(t, 'mailsvc_accepts_total', { result });
    const post = (headers: Record<string, string>, payload: string) =>
      h.request({ method: 'POST', url: '/v1/send', headers, payload });
    expect((await post({ 'content-type': 'application/json' }, '{}')).statusCode).toBe(401);
    expect(
      (await post({ ...bearer('msk_nope_nope'), 'content-type': 'application/json' }, '{}')).statusCode,
    ).toBe(401);
    expect((await post({ ...bearer(s.apiKey), 'content-type': 'text/plain' }, 'x')).statusCode).toBe(415);
    expect(
      (await post({ ...bearer(s.apiKey), 'content-type': 'application/json' }, `"${'x'.repeat(300_000)}"`))
        .statusCode,
    ).toBe(413);
    expect((await post({ ...bearer(s.apiKey), 'content-type': 'application/json' }, '{}')).statusCode).toBe(
      400,
    );
    const after = await scrape();
    for (const [result, n] of [
      ['missing_api_key', 1],
      ['invalid_api_key', 1],
      ['unsupported_media_type', 1],
      ['payload_too_large', 1],
      ['invalid_request', 1],
    ] as const)
      expect(count(after, result) - count(before, result), result).toBe(n);
  });

  it('does not count its own queries as waiting for a connection on an idle scrape', async () => {
    await scrape();
    expect(value(await scrape(), 'mailsvc_db_pool_connections', { state: 'waiting' })).toBe(0);
  });

  it('moves as messages are accepted, queued and delivered', async () => {
    const before = await scrape();
    const accepted = (t: string) =>
      value(t, 'mailsvc_accepts_total', { category: 'security', result: 'accepted' });
    const sent = (t: string) =>
      value(t, 'mailsvc_delivery_outcomes_total', { category: 'security', status: 'sent' });

    for (let i = 0; i < 3; i++) {
      const res = await send({
        templateId: 'login-code',
        to: `m-${i}@example.com`,
        data: { code: '123456' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const refused = await send({ templateId: 'no-such-template', to: 'x@example.com', data: {} });
    expect(refused.statusCode).toBe(404);

    // a batch's items count one by one, each with its result
    const batch = await h.request({
      method: 'POST',
      url: '/v1/send/batch',
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        items: [
          { templateId: 'login-code', to: 'm-batch@example.com', data: { code: '123456' } },
          { templateId: 'login-code', to: 'nobody', data: { code: '123456' } },
        ],
      }),
    });
    expect(batch.json().accepted).toBe(1);

    const queued = await scrape();
    expect(accepted(queued) - accepted(before)).toBe(4);
    expect(
      value(queued, 'mailsvc_accepts_total', { category: 'security', result: 'invalid_request' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(queued, 'mailsvc_accepts_total', { category: 'unknown', result: 'template_not_found' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(queued, 'mailsvc_accept_duration_seconds_count', { result: 'accepted' }),
    ).toBeGreaterThanOrEqual(3);
    expect(value(queued, 'mailsvc_queue_messages', { status: 'queued' })).toBeGreaterThanOrEqual(3);
    expect(value(queued, 'mailsvc_batch_size_count', { kind: 'accept' })).toBeGreaterThanOrEqual(1);
    expect(value(queued, 'mailsvc_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);

    // the oldest due message ages with the clock
    h.clock.set(new Date(h.clock.now().getTime() + 42_000).toISOString());
    expect(value(await scrape(), 'mailsvc_queue_oldest_due_age_seconds')).toBeGreaterThanOrEqual(42);

    await worker.drain();
    const after = await scrape();
    // the three sends and the batch's accepted item
    expect(sent(after) - sent(before)).toBe(4);
    expect(value(after, 'mailsvc_smtp_duration_seconds_count', { result: 'sent' })).toBeGreaterThanOrEqual(3);
    expect(value(after, 'mailsvc_batch_size_count', { kind: 'claim' })).toBeGreaterThanOrEqual(1);
    expect(value(after, 'mailsvc_queue_messages', { status: 'queued' })).toBe(0);
    expect(value(after, 'mailsvc_queue_oldest_due_age_seconds')).toBe(0);
    // process metrics come with them
    expect(after).toContain('mailsvc_process_resident_memory_bytes');
    // no tenant, address or key in any label
    expect(after).not.toMatch(/example\.com|ten_|msk_/);
  });

  it('has every metric the operations guide and the Grafana dashboard name', async () => {
    const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
    const names = (file: string) =>
      new Set(
        [...fs.readFileSync(path.join(docs, file), 'utf8').matchAll(/mailsvc_[a-z_]*[a-z](?![\w*])/g)].map(
          (m) => m[0].replace(/_(bucket|sum|count)$/, ''),
        ),
      );
    const text = await scrape();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!));
    for (const file of ['operations.md', 'grafana-dashboard.json']) {
      expect(names(file).size, file).toBeGreaterThanOrEqual(8);
      const missing = [...names(file)].filter((n) => !exported.has(n));
      expect(missing, file).toEqual([]);
    }
  });

  it('answers only loopback clients when no token is set, as a path that does not exist', async () => {
    const res = await h.request({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.7' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

describe('GET /metrics with MAILSVC_METRICS_TOKEN', () => {
  it('needs the bearer token, from anywhere, loopback included', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const t = await createHarness({ env: { MAILSVC_METRICS_TOKEN: token } });
    try {
      expect((await t.request({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      const wrong = await t.request({ method: 'GET', url: '/metrics', headers: bearer(`${token}x`) });
      expect(wrong.statusCode).toBe(404);
      const ok = await t.request({
        method: 'GET',
        url: '/metrics',
        headers: bearer(token),
        remoteAddress: '203.0.113.7',
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('mailsvc_accepts_total');
    } finally {
      await t.close();
    }
  });
});

describe('the worker throughput line', () => {
  it('logs attempts by status and the rate while there is work, and nothing when idle', () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({}, { write: (l: string) => lines.push(JSON.parse(l)) });
    let inFlight = 2;
    const t = new ThroughputLog(log, () => inFlight);
    t.count('sent');
    t.count('sent');
    t.count('deferred');
    expect(t.flush()).toBe(true);
    expect(lines[0]).toMatchObject({ attempts: 3, sent: 2, deferred: 1, inFlight: 2 });
    expect(String(lines[0]!.msg)).toMatch(/^delivery: 3 attempts in [\d.]+ s \([\d.]+\/s\), 2 in flight$/);
    inFlight = 0;
    expect(t.flush()).toBe(false);
    expect(lines).toHaveLength(1);
  });
});
