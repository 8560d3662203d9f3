// Webhook delivery as an operator runs it: `mailsvc worker`, started by its CLI with its defaults
// (32 webhook slots, 8 per endpoint), delivering a queue of N signed events to one endpoint — a
// receiver in its own process (bench/webhook-receiver.mjs) — against a baseline of raw fetch
// (undici) POSTs of the same bodies and headers with the same concurrency (8, the per-endpoint cap
// that applies to one endpoint) from its own process (bench/webhook-baseline.mjs); rounds
// alternate (ABBA), one unmeasured round of each first. Times: first to last request at the
// receiver; the worker also from its "is running" banner to every delivery recorded. Every round
// is checked: each event received, none twice, every delivery `succeeded` in the database.
// Run: npx tsx bench/webhooks.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_EVENTS per round, default 4000; BENCH_ROUNDS, default 4; BENCH_WORKER_NODE_FLAGS='["--flag"]'
// node flags for the worker processes)
// The other figure of the issue, mail delivery with two endpoints subscribed to every event
// against none, is bench/delivery.ts with BENCH_VARIANT_ENV='{"WEBHOOK_ENDPOINTS":"2"}'.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { insertEndpoint } from '../packages/server/src/db/repositories/webhook-endpoints.js';
import { queueWebhookEvents } from '../packages/server/src/db/repositories/webhook-queue.js';
import { newId } from '../packages/server/src/ids.js';
import { webhookPayload } from '../packages/server/src/webhooks/payload.js';
import { newWebhookSecret, signWebhook } from '../packages/server/src/webhooks/signing.js';
import { openBenchTenant } from './bench-tenant.js';
import { backendCpu, cpuSeconds, exited } from './process-cpu.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** The worker's per-endpoint cap (MAILSVC_WEBHOOK_PER_ENDPOINT, as the worker reads it): the baseline's lanes. */
const CONCURRENCY = Number(process.env.MAILSVC_WEBHOOK_PER_ENDPOINT ?? 8);
/** Node flags for the worker processes, e.g. '["--cpu-prof"]' (V8's own are not allowed in NODE_OPTIONS). */
const WORKER_NODE_FLAGS: string[] = JSON.parse(process.env.BENCH_WORKER_NODE_FLAGS ?? '[]');

interface Arrival {
  id: string;
  t: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 180_000, progress?: () => string) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out${progress ? `: ${progress()}` : ''}`);
    await sleep(5);
  }
}

async function startReceiver(): Promise<{ port: number; child: ChildProcess; arrivals: Arrival[] }> {
  const child = fork(path.join(ROOT, 'bench/webhook-receiver.mjs'));
  const arrivals: Arrival[] = [];
  const port = await new Promise<number>((resolve) =>
    child.on('message', (m: { port?: number; events?: Arrival[] }) => {
      if (m.port) resolve(m.port);
      else for (const e of m.events!) arrivals.push(e);
    }),
  );
  return { port, child, arrivals };
}

/** A message.sent event's stored data, as the outbox trigger writes it. */
function sentEventData(i: number, at: Date): Record<string, unknown> {
  return {
    messageId: newId('msg', at.getTime()),
    templateId: 'login-code',
    templateVersion: 'v1',
    to: `user-${i}@example.com`,
    metadata: { userId: `u_${i}`, flow: 'login' },
    bulkJobId: null,
    timelineType: 'sent',
    details: { smtpCode: 250, response: '250 2.0.0 Ok: queued as 4Xk2Lm0bqz' },
    occurredAt: at.toISOString(),
  };
}

function checkRound(label: string, arrivals: Arrival[], ids: Set<string>): void {
  const seen = new Set<string>();
  for (const a of arrivals) {
    if (!ids.has(a.id)) throw new Error(`${label}: an unknown event ${a.id} arrived`);
    if (seen.has(a.id)) throw new Error(`${label}: ${a.id} arrived twice`);
    seen.add(a.id);
  }
  if (seen.size !== ids.size) throw new Error(`${label}: ${ids.size - seen.size} events never arrived`);
}

const firstToLast = (arrivals: Arrival[]) => {
  const ts = arrivals.map((a) => a.t);
  return arrivals.length / ((Math.max(...ts) - Math.min(...ts)) / 1000);
};

async function main() {
  const bench = await openBenchTenant(BASE_URL, 'webhooks');
  const receiver = await startReceiver();
  const db = bench.runtime.deps.db;
  const env = await db.selectFrom('environments').select(['id', 'tenant_id']).executeTakeFirstOrThrow();
  const secret = newWebhookSecret();
  const endpoint = await insertEndpoint(
    db,
    {
      id: newId('whe'),
      tenantId: env.tenant_id,
      environmentId: env.id,
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      description: 'bench',
      eventTypes: null,
      enabled: true,
      rateLimitPerSecond: null,
      secret,
    },
    new Date(),
  );
  const url = endpoint.url;

  const pool = new pg.Pool({ connectionString: bench.runtime.config.DATABASE_URL!, max: 1 });

  async function worker(): Promise<{
    atReceiver: number;
    startToDrain: number;
    cpuMs: number;
    pgMs: number;
    receiverMs: number;
  }> {
    const at = new Date();
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      id: newId('evt', at.getTime()),
      tenantId: env.tenant_id,
      environmentId: env.id,
      type: 'message.sent',
      messageId: null,
      data: sentEventData(i, at),
      createdAt: at,
    }));
    for (let i = 0; i < events.length; i += 1000) await queueWebhookEvents(db, events.slice(i, i + 1000));
    const ids = new Set(events.map((e) => e.id));
    const start = receiver.arrivals.length;
    const child = spawn(
      process.execPath,
      [...WORKER_NODE_FLAGS, path.join(ROOT, 'packages/server/bin/mailsvc.js'), 'worker'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: bench.runtime.config.DATABASE_URL!,
          MAILSVC_DATA_DIR: bench.runtime.config.dataDir,
          MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let ready = { t: 0, cpu: 0, receiver: 0 };
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      if (ready.t !== 0) return;
      out += d;
      if (out.includes('mailsvc worker is running'))
        ready = { t: Date.now(), cpu: cpuSeconds(child.pid!), receiver: cpuSeconds(receiver.child.pid!) };
    });
    // the worker's backends once it connected (those made later count from 0)
    let pg0 = new Map<number, number>();
    void until(() => ready.t !== 0).then(async () => {
      pg0 = await backendCpu(pool);
    });
    let errors = '';
    child.stderr!.on('data', (d) => (errors += d));
    await until(
      () => {
        if (child.exitCode !== null) throw new Error(`mailsvc worker exited ${child.exitCode}: ${errors}`);
        return receiver.arrivals.length - start >= EVENTS;
      },
      180_000,
      () => `${receiver.arrivals.length - start} at the receiver`,
    );
    for (;;) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '!=', 'succeeded')
        .executeTakeFirstOrThrow();
      if (Number(row.n) === 0) break;
      await sleep(5);
    }
    const drained = Date.now();
    const cpu = cpuSeconds(child.pid!);
    const receiverCpu = cpuSeconds(receiver.child.pid!);
    let pgCpu = 0;
    for (const [pid, seconds] of await backendCpu(pool)) pgCpu += seconds - (pg0.get(pid) ?? 0);
    child.kill('SIGTERM');
    if ((await exited(child)) !== 0) throw new Error('mailsvc worker did not stop cleanly');
    await sleep(200);
    const arrivals = receiver.arrivals.slice(start);
    checkRound('worker', arrivals, ids);
    // a delivery's event is not held by a foreign key (0025): the deliveries go first
    await db.deleteFrom('webhook_deliveries').execute();
    await db.deleteFrom('webhook_events').execute();
    return {
      atReceiver: firstToLast(arrivals),
      startToDrain: EVENTS / ((drained - ready.t) / 1000),
      cpuMs: ((cpu - ready.cpu) * 1000) / EVENTS,
      pgMs: (pgCpu * 1000) / EVENTS,
      receiverMs: ((receiverCpu - ready.receiver) * 1000) / EVENTS,
    };
  }

  async function baseline(): Promise<{ atReceiver: number; cpuMs: number; receiverMs: number }> {
    const at = new Date();
    const bodies = Array.from({ length: EVENTS }, (_, i) => {
      const id = newId('evt', at.getTime());
      const body = JSON.stringify(
        webhookPayload({ type: 'message.sent', data: sentEventData(i, at), createdAt: at }),
      );
      const headers = signWebhook(id, at, body, { secret, previousSecret: null, previousSecretUntil: null });
      return { id, body, headers };
    });
    const ids = new Set(bodies.map((b) => b.id));
    const start = receiver.arrivals.length;
    const receiver0 = cpuSeconds(receiver.child.pid!);
    const child = fork(path.join(ROOT, 'bench/webhook-baseline.mjs'));
    const done = new Promise<number>((resolve) =>
      child.on('message', (m: { done?: boolean; cpuMicros?: number }) => {
        if (m.done) resolve(m.cpuMicros!);
      }),
    );
    child.send({ url, bodies, concurrency: CONCURRENCY });
    const cpuMicros = await done;
    await until(() => receiver.arrivals.length - start >= EVENTS);
    const receiverMs = ((cpuSeconds(receiver.child.pid!) - receiver0) * 1000) / EVENTS;
    child.kill();
    await exited(child);
    await sleep(200);
    const arrivals = receiver.arrivals.slice(start);
    checkRound('baseline', arrivals, ids);
    return { atReceiver: firstToLast(arrivals), cpuMs: cpuMicros / 1000 / EVENTS, receiverMs };
  }

  try {
    await baseline();
    await worker();
    const rounds: { b: Awaited<ReturnType<typeof baseline>>; w: Awaited<ReturnType<typeof worker>> }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const b = r % 2 === 0 ? await baseline() : undefined;
      const w = await worker();
      rounds.push({ b: b ?? (await baseline()), w });
      console.log(
        `round ${r + 1}: baseline ${Math.round(rounds[r]!.b.atReceiver)}/s, worker ${Math.round(w.atReceiver)}/s`,
      );
    }
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const mid = Math.floor(s.length / 2);
      return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
    };
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    console.log(
      `\nWebhook delivery by \`mailsvc worker\` (its own process, its defaults) against raw fetch POSTs of the same signed bodies (own process, ${CONCURRENCY} at once): ${EVENTS} message.sent events per round to one endpoint, the receiver in its own process`,
    );
    console.log(
      `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL ${bench.pgVersion}; load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    console.log(
      '| round | fetch events/s, first→last | worker events/s, first→last | ratio | worker events/s, start→drain | CPU ms/event fetch / worker | PostgreSQL CPU ms/event (worker) | receiver CPU ms/event fetch / worker |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [i, r] of rounds.entries())
      console.log(
        `| ${i + 1} | ${fmt(r.b.atReceiver)} | ${fmt(r.w.atReceiver)} | ${(r.w.atReceiver / r.b.atReceiver).toFixed(2)} | ${fmt(r.w.startToDrain)} | ${r.b.cpuMs.toFixed(3)} / ${r.w.cpuMs.toFixed(3)} | ${r.w.pgMs.toFixed(3)} | ${r.b.receiverMs.toFixed(3)} / ${r.w.receiverMs.toFixed(3)} |`,
      );
    const med = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
    console.log(
      `| median | ${fmt(med((r) => r.b.atReceiver))} | ${fmt(med((r) => r.w.atReceiver))} | **${med((r) => r.w.atReceiver / r.b.atReceiver).toFixed(2)}** | ${fmt(med((r) => r.w.startToDrain))} | ${med((r) => r.b.cpuMs).toFixed(3)} / ${med((r) => r.w.cpuMs).toFixed(3)} | ${med((r) => r.w.pgMs).toFixed(3)} | ${med((r) => r.b.receiverMs).toFixed(3)} / ${med((r) => r.w.receiverMs).toFixed(3)} |`,
    );
    console.log('\nEvery round: each event received once, every delivery recorded succeeded.');
  } finally {
    receiver.child.kill();
    await pool.end();
    await bench.close();
  }
}

await main();
