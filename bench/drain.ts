// Drain: N queued messages (default 100,000) delivered end to end by one worker to a local SMTP
// sink (DKIM-signed, the worker's default pool and in-flight count), with the time and messages/s. While
// the queue drains, a login code is sent through POST /v1/send and its accept → sink latency is
// measured: security mail is claimed before the transactional backlog (priority under load).
// The sink runs in its own process (bench/smtp-sink.mjs). A temporary database is made and dropped.
// Run: npx tsx bench/drain.ts   (BENCH_MESSAGES, default 100000; BENCH_ROUNDS, default 3; BENCH_DATABASE_URL)
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFixture, templates } from '@mailsvc/templates';
import { loadConfig } from '../packages/server/src/config.js';
import { smtpTransport } from '../packages/server/src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../packages/server/src/delivery/worker.js';
import { openBenchTenant } from './bench-tenant.js';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
// the defaults a worker runs with (MAILSVC_SMTP_POOL_SIZE, MAILSVC_WORKER_CONCURRENCY)
const defaults = loadConfig({ DATABASE_URL: BASE_URL }); // the defaults on PostgreSQL
const POOL = defaults.MAILSVC_SMTP_POOL_SIZE;
const IN_FLIGHT = defaults.MAILSVC_WORKER_CONCURRENCY;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LOGIN_CODE_AT = 0.3; // sent when this share of the backlog is at the sink

async function startSink(): Promise<{
  port: number;
  child: ChildProcess;
  count: () => number;
  seen: Map<string, number>;
}> {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'smtp-sink.mjs'));
  let n = 0;
  const seen = new Map<string, number>();
  const port = await new Promise<number>((resolve) =>
    child.on('message', (m: { port?: number; events?: { id: string; t: number }[] }) => {
      if (m.port) resolve(m.port);
      else
        for (const e of m.events!) {
          n++;
          if (e.id) seen.set(e.id, e.t);
        }
    }),
  );
  return { port, child, count: () => n, seen };
}

async function until(check: () => boolean, ms: number, progress: () => string) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out (${progress()})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function main() {
  const sink = await startSink();
  const bench = await openBenchTenant(BASE_URL, 'drain');
  try {
    const { runtime, app, apiKey } = bench;
    const backlogTemplate = templates.find((t) => t.versions[0]!.category === 'transactional')!;
    const backlogVersion = backlogTemplate.versions[0]!;
    const send = (templateId: string, to: string, data: unknown) =>
      app.inject({
        method: 'POST',
        url: '/v1/send',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ templateId, to, data }),
      });

    const results: { acceptSeconds: number; drainSeconds: number; codeLatency: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // each round from an empty queue
      await runtime.database.pool.query('TRUNCATE message_events, messages CASCADE');
      // the backlog, accepted through the API before the worker starts
      const t0 = performance.now();
      const fixture = getFixture(backlogVersion);
      for (let i = 0; i < MESSAGES; i += 100) {
        const replies = await Promise.all(
          Array.from({ length: Math.min(100, MESSAGES - i) }, (_, j) =>
            send(backlogTemplate.id, `user${i + j}@example.com`, fixture),
          ),
        );
        const bad = replies.find((r) => r.statusCode !== 200);
        if (bad) throw new Error(`accept: ${bad.statusCode} ${bad.body}`);
      }
      const acceptSeconds = (performance.now() - t0) / 1000;
      await runtime.database.pool.query('ANALYZE messages');

      const transport = smtpTransport({ url: `smtp://127.0.0.1:${sink.port}`, poolSize: POOL });
      const worker = new DeliveryWorker(runtime.deps, transport, {
        concurrency: IN_FLIGHT,
        leaseMs: 300_000,
        pollMs: 60_000,
      });
      const start = sink.count();
      const t1 = performance.now();
      worker.start();
      const progress = () => `${sink.count() - start} of ${MESSAGES} at the sink`;
      await until(() => sink.count() - start >= MESSAGES * LOGIN_CODE_AT, 3_600_000, progress);
      const codeSentAt = Date.now();
      const res = await send('login-code', 'urgent@example.com', { code: '482913' });
      const codeId = res.json().messageId as string;
      await until(
        () => sink.seen.has(codeId),
        60_000,
        () => `login code ${codeId} not at the sink`,
      );
      const codeLatency = sink.seen.get(codeId)! - codeSentAt;
      await until(() => sink.count() - start >= MESSAGES + 1, 3_600_000, progress);
      await worker.stop();
      const drainSeconds = (performance.now() - t1) / 1000;
      await transport.close();
      const { rows } = await runtime.database.pool.query(
        'SELECT status, count(*)::int AS n FROM messages GROUP BY status ORDER BY status',
      );
      const left = rows.filter((r) => r.status !== 'sent');
      if (left.length > 0) throw new Error(`not all sent: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 200)); // a duplicate would arrive within this
      if (sink.count() - start !== MESSAGES + 1)
        throw new Error(`${sink.count() - start} at the sink for ${MESSAGES + 1} sent`);
      results.push({ acceptSeconds, drainSeconds, codeLatency });
      console.error(
        `round ${round + 1}: ${MESSAGES} in ${drainSeconds.toFixed(1)} s (${Math.round(MESSAGES / drainSeconds)}/s), login code ${codeLatency} ms`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

    const { pgVersion } = bench;
    console.log(
      `\nDrain: ${MESSAGES.toLocaleString('en-US')} queued \`${backlogTemplate.id}\` messages per round (accepted through POST /v1/send first), one worker, pool ${POOL}, ${IN_FLIGHT} in flight, DKIM rsa-sha256 2048, sink in its own process; ${ROUNDS} rounds`,
    );
    console.log(
      `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL ${pgVersion}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    console.log(
      `| round | messages | accepted in | drain time | messages/s | login code sent at ${LOGIN_CODE_AT * 100}% → at the sink |`,
    );
    console.log('|---|---|---|---|---|---|');
    for (const [i, r] of results.entries())
      console.log(
        `| ${i + 1} | ${MESSAGES.toLocaleString('en-US')} | ${r.acceptSeconds.toFixed(1)} s | ${r.drainSeconds.toFixed(1)} s | ${Math.round(MESSAGES / r.drainSeconds).toLocaleString('en-US')} | ${r.codeLatency} ms |`,
      );
    const drain = median(results.map((r) => r.drainSeconds));
    console.log(
      `| median | | | ${drain.toFixed(1)} s | ${Math.round(MESSAGES / drain).toLocaleString('en-US')} | ${median(results.map((r) => r.codeLatency))} ms |`,
    );
    console.log(
      `\nevery round: the sink's count exactly the backlog + the login code, every message's status sent (checked, else the bench stops)`,
    );
  } finally {
    sink.child.kill('SIGTERM');
    await bench.close();
  }
}

await main();
