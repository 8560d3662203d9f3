// Accepted sends per second through the real POST /v1/send on PostgreSQL, as a ratio of a bare
// server measured in the same run (Fastify + one INSERT … RETURNING id per request, same pool
// size), then p99 latency at a fixed offered load of 1,000 requests/s. Accept only: the delivery
// worker does not run. Each server runs in a child process so that autocannon (in this process)
// does not share its event loop. A temporary database is created and dropped.
// Run: npx tsx bench/accept.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
// BENCH_COMPARE_LIST_INDEXES=1: the app with and without the message list's indexes instead;
// BENCH_BATCH=1: POST /v1/send/batch of 100 against single sends instead.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../packages/server/src/api/app.js';
import { loadConfig } from '../packages/server/src/config.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { adminCommands } from '../packages/server/src/domain/admin/index.js';
import { createLogger } from '../packages/server/src/logger.js';
import { openRuntime } from '../packages/server/src/runtime.js';
import { cpuSeconds } from './process-cpu.js';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const POOL_SIZE = 10; // MAILSVC_DB_POOL_SIZE's default, for both servers
const CONNECTIONS = 32;
const WARMUP_S = 3;
const DURATION_S = 10;
const OFFERED_RATE = 1000;
/** A recipient who complained: every send to it is refused with 403 recipient_complained. */
const REFUSED_RECIPIENT = 'complained@example.com';

type Ready = { port: number; apiKey?: string };

// ---- child: the baseline server ------------------------------------------------------------
async function serveBaseline(databaseUrl: string): Promise<Ready> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  const app = Fastify();
  app.post('/v1/send', async (req) => {
    const body = req.body as { templateId: string; to: string; data: unknown };
    const now = new Date();
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO bench_messages (id, tenant_id, project_id, environment_id, template_id, template_version,
         category, priority, to_email, from_email, sending_domain, data, next_attempt_at, expires_at,
         created_at, updated_at)
       VALUES ($1, 'ten_b', 'prj_b', 'env_b', $2, 'v1', 'security', 0, $3, 'notifications@mailsvc.test',
         'mailsvc.test', $4, $5, $5, $5, $5)
       RETURNING id`,
      [`msg_${randomUUID()}`, body.templateId, body.to, JSON.stringify(body.data), now],
    );
    return { ok: true, status: 'accepted', messageId: rows[0]!.id, idempotent: false };
  });
  // The least a batch can do (BENCH_BATCH=1): its items written as rows of the same table, with the
  // same indexes, in one statement and one commit; no checks, no events, no idempotency.
  app.post('/v1/send/batch', async (req) => {
    const { items } = req.body as { items: { templateId: string; to: string; data: unknown }[] };
    const now = new Date();
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO bench_messages (id, tenant_id, project_id, environment_id, template_id, template_version,
         category, priority, to_email, from_email, sending_domain, data, next_attempt_at, expires_at,
         created_at, updated_at)
       SELECT i.id, 'ten_b', 'prj_b', 'env_b', i.template_id, 'v1', 'security', 0, i.to_email,
         'notifications@mailsvc.test', 'mailsvc.test', i.data, $2, $2, $2, $2
         FROM jsonb_to_recordset($1::jsonb) AS i(id text, template_id text, to_email text, data jsonb)
       RETURNING id`,
      [
        JSON.stringify(
          items.map((b) => ({
            id: `msg_${randomUUID()}`,
            template_id: b.templateId,
            to_email: b.to,
            data: b.data,
          })),
        ),
        now,
      ],
    );
    return { ok: true, results: rows.map((r) => ({ ok: true, status: 'accepted', messageId: r.id })) };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('SIGTERM', () => {
    app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
  return { port: (app.server.address() as { port: number }).port };
}

// ---- child: the real app -------------------------------------------------------------------
async function serveApp(databaseUrl: string): Promise<Ready> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-bench-'));
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    MAILSVC_DATA_DIR: dataDir,
    MAILSVC_DB_POOL_SIZE: String(POOL_SIZE),
  });
  // Production log level (info: request lines and "message accepted"), written to /dev/null.
  const log = createLogger(config.LOG_LEVEL, pino.destination({ dest: '/dev/null', sync: false }));
  const runtime = await openRuntime(config, { command: 'bench', log });
  const admin = (name: string, input: Record<string, unknown>) =>
    // biome-ignore lint/suspicious/noExplicitAny: admin results are read loosely here
    adminCommands[name]!.run(runtime.deps, input as never, 'bench') as Promise<any>;
  // A rate limit the load never reaches: the limiter runs on every request, as in production.
  // each start of the app in this database (one per round) gets its own plan and tenant
  const planId = `bench_${process.pid}`;
  await admin('plans.create', {
    id: planId,
    monthlyLimit: 100_000_000,
    overageAllowed: false,
    rateLimitPerSecond: 1_000_000,
    rateLimitBurst: 1_000_000,
  });
  const { tenant } = await admin('tenants.create', { name: `Bench ${process.pid}`, plan: planId });
  const { project } = await admin('projects.create', { tenant: tenant.id, name: 'Bench App' });
  const { environment } = await admin('environments.create', { project: project.id, name: 'production' });
  const { apiKey } = await admin('keys.create', { environment: environment.id });
  // the refused-send run's recipient: complained, so every send to it answers 403
  await runtime.deps.db
    .insertInto('recipients')
    .values({
      environment_id: environment.id,
      tenant_id: tenant.id,
      email: REFUSED_RECIPIENT,
      complained_at: new Date(),
      complaint_count: 1,
    })
    .execute();
  const app = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('SIGTERM', () => {
    app
      .close()
      .then(() => runtime.close())
      .finally(() => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
  });
  return { port: (app.server.address() as { port: number }).port, apiKey };
}

// ---- parent: database, children, load ------------------------------------------------------
async function createDatabase() {
  const name = `mailsvc_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  await migrate(pool);
  // The baseline's table: the messages table's columns, defaults, checks and indexes (no foreign keys).
  await pool.query('CREATE TABLE bench_messages (LIKE messages INCLUDING ALL)');
  const { rows } = await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  await pool.end();
  return {
    url: url.toString(),
    serverVersion: rows[0]!.v,
    async drop() {
      const c = new pg.Client({ connectionString: BASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function startChild(role: 'baseline' | 'app', databaseUrl: string): Promise<{ child: ChildProcess } & Ready> {
  const child = fork(fileURLToPath(import.meta.url), [role, databaseUrl], {
    stdio: 'inherit',
    execArgv: [
      ...process.execArgv,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []),
    ],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, ...(m as Ready) }));
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

let sequence = 0;
function load(
  port: number,
  opts: {
    apiKey?: string;
    idempotency?: boolean;
    refused?: boolean;
    duration: number;
    overallRate?: number;
    /** POST /v1/send/batch with this many items per request. */
    batch?: number;
    connections?: number;
  },
): Promise<Result> {
  const send = (n: number) => ({
    templateId: 'login-code',
    to: opts.refused ? REFUSED_RECIPIENT : `user${n}@example.com`,
    data: { code: String(100000 + (n % 900000)) },
  });
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: opts.connections ?? CONNECTIONS,
    duration: opts.duration,
    ...(opts.overallRate && { overallRate: opts.overallRate }),
    requests: [
      {
        method: 'POST',
        path: opts.batch ? '/v1/send/batch' : '/v1/send',
        setupRequest: (req) => {
          const n = ++sequence;
          return {
            ...req,
            headers: {
              'content-type': 'application/json',
              ...(opts.apiKey && { authorization: `Bearer ${opts.apiKey}` }),
              ...(opts.idempotency && { 'idempotency-key': `bench-${process.pid}-${n}` }),
            },
            body: JSON.stringify(
              opts.batch
                ? { items: Array.from({ length: opts.batch }, (_, i) => send(n * 1000 + i)) }
                : send(n),
            ),
          };
        },
      },
    ],
  });
}

/** CPU time (user + system, ms) of these processes so far (process-cpu.ts). */
const cpuMs = (pids: number[]) => pids.reduce((ms, pid) => ms + cpuSeconds(pid) * 1000, 0);

/** Every PostgreSQL process (backends, WAL writer, checkpointer) on this machine. */
function postgresPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface Row {
  name: string;
  perSecond: number;
  /** CPU per 2xx request, µs: the server process and PostgreSQL. */
  serverCpuUs: number;
  postgresCpuUs: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
  /** Per 2xx request: WAL bytes, full-page images in the WAL, commits of the bench database. */
  walBytes: number;
  walFpi: number;
  commits: number;
}

/** Cluster-wide WAL written so far (pg_stat_wal, PostgreSQL 14+) and the bench database's commits. */
async function walStats(): Promise<{ bytes: number; fpi: number; commits: number }> {
  const c = new pg.Client({ connectionString: benchDatabaseUrl });
  await c.connect();
  const { rows } = await c.query<{ bytes: string; fpi: string; commits: string }>(
    `SELECT w.wal_bytes::text AS bytes, w.wal_fpi::text AS fpi, d.xact_commit::text AS commits
       FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = current_database()`,
  );
  await c.end();
  return { bytes: Number(rows[0]!.bytes), fpi: Number(rows[0]!.fpi), commits: Number(rows[0]!.commits) };
}

/**
 * Background work the previous run left (autovacuum of the rows it wrote, a checkpoint) done now,
 * so it does not land in the next run's window, whichever server that is.
 */
async function settle(): Promise<void> {
  const c = new pg.Client({ connectionString: benchDatabaseUrl });
  await c.connect();
  await c.query('VACUUM ANALYZE messages, message_events, idempotency_keys, bench_messages');
  await c.query('CHECKPOINT');
  await c.end();
}
let benchDatabaseUrl = '';

async function measure(
  name: string,
  server: { port: number; child: ChildProcess },
  opts: {
    apiKey?: string;
    idempotency?: boolean;
    refused?: boolean;
    overallRate?: number;
    batch?: number;
    connections?: number;
  },
): Promise<Row> {
  const { port } = server;
  if (!opts.overallRate) await load(port, { ...opts, duration: WARMUP_S });
  await settle();
  const wal0 = await walStats();
  const pg0 = postgresPids();
  const before = { server: cpuMs([server.child.pid!]), postgres: cpuMs(pg0) };
  const r = await load(port, { ...opts, duration: DURATION_S });
  // backends started during the run count whole; those that ended are missed (rare: the pool keeps its connections)
  const pg1 = [...new Set([...pg0, ...postgresPids()])];
  // a refused run counts its answers (403), every other run its 2xx
  const answered = opts.refused ? r.non2xx : r['2xx'];
  const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(1, answered));
  const wal1 = await walStats();
  const per = (n: number) => n / Math.max(1, answered);
  const row = {
    name,
    perSecond: Math.round(answered / r.duration),
    serverCpuUs: perRequest(cpuMs([server.child.pid!]) - before.server),
    postgresCpuUs: perRequest(cpuMs(pg1) - before.postgres),
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    failures: (opts.refused ? r['2xx'] : r.non2xx) + r.errors + r.timeouts,
    walBytes: Math.round(per(wal1.bytes - wal0.bytes)),
    walFpi: Number(per(wal1.fpi - wal0.fpi).toFixed(2)),
    commits: Number(per(wal1.commits - wal0.commits).toFixed(3)),
  };
  console.error(
    `  ${name}: ${row.perSecond}/s p50 ${row.p50} ms p99 ${row.p99} ms, ${row.failures} failures; CPU per request: server ${row.serverCpuUs} µs, PostgreSQL ${row.postgresCpuUs} µs; per request WAL ${row.walBytes} B, ${row.walFpi} full-page images, ${row.commits} commits`,
  );
  return row;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Round {
  baseline: Row;
  baselineFixed: Row;
  plain: Row;
  keyed: Row;
  fixed: Row;
  refused: Row;
}

async function measureBaseline(url: string): Promise<Pick<Round, 'baseline' | 'baselineFixed'>> {
  const base = await startChild('baseline', url);
  const baseline = await measure('baseline: Fastify + one INSERT … RETURNING id', base, {});
  const baselineFixed = await measure(`baseline at ${OFFERED_RATE}/s offered`, base, {
    overallRate: OFFERED_RATE,
  });
  await stopChild(base.child);
  return { baseline, baselineFixed };
}

async function measureApp(
  url: string,
  keyedFirst: boolean,
): Promise<Pick<Round, 'plain' | 'keyed' | 'fixed' | 'refused'>> {
  const app = await startChild('app', url);
  const apiKey = app.apiKey!;
  const runPlain = () => measure('mailsvc POST /v1/send, no Idempotency-Key', app, { apiKey });
  const runKeyed = () =>
    measure('mailsvc POST /v1/send, unique Idempotency-Key', app, { apiKey, idempotency: true });
  // which of the two goes first alternates too: autovacuum of the rows the first one wrote may
  // fall into the second one's window
  let plain: Row;
  let keyed: Row;
  if (keyedFirst) {
    keyed = await runKeyed();
    plain = await runPlain();
  } else {
    plain = await runPlain();
    keyed = await runKeyed();
  }
  const fixed = await measure(`mailsvc at ${OFFERED_RATE}/s offered, no Idempotency-Key`, app, {
    apiKey,
    overallRate: OFFERED_RATE,
  });
  // A refused send: answered from the accept's own statement, one round trip (a batch of them
  // commits once); the commits per answer show it.
  const refused = await measure('mailsvc POST /v1/send refused (recipient_complained)', app, {
    apiKey,
    refused: true,
  });
  await stopChild(app.child);
  return { plain, keyed, fixed, refused };
}

/** The indexes the message list added (0011_message_list.sql), for BENCH_COMPARE_LIST_INDEXES. */
const LIST_INDEXES = [
  'messages_list_idx ON messages (environment_id, id)',
  'messages_list_status_idx ON messages (environment_id, status, id)',
  'messages_list_template_idx ON messages (environment_id, template_id, id)',
  'messages_list_bulk_job_idx ON messages (bulk_job_id, id) WHERE bulk_job_id IS NOT NULL',
];

async function setListIndexes(url: string, present: boolean): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (const def of LIST_INDEXES)
    await c.query(
      present ? `CREATE INDEX IF NOT EXISTS ${def}` : `DROP INDEX IF EXISTS ${def.split(' ')[0]}`,
    );
  await c.end();
}

/**
 * BENCH_COMPARE_LIST_INDEXES=1: the app with the message list's indexes against the app without
 * them (as before issue 26), in alternating rounds on one database; no baseline server.
 */
async function compareListIndexes() {
  const db = await createDatabase();
  benchDatabaseUrl = db.url;
  const rows: {
    with: Awaited<ReturnType<typeof measureApp>>;
    without: Awaited<ReturnType<typeof measureApp>>;
  }[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      console.error(`round ${i + 1}…`);
      const run = async (present: boolean) => {
        await setListIndexes(db.url, present);
        return measureApp(db.url, i % 2 === 1);
      };
      if (i % 2 === 0) {
        const without = await run(false);
        rows.push({ without, with: await run(true) });
      } else {
        const withIdx = await run(true);
        rows.push({ with: withIdx, without: await run(false) });
      }
    }
  } finally {
    await db.drop();
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const fmt = (n: number) => n.toLocaleString('en-US');
  console.log(
    `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, PostgreSQL ${db.serverVersion}; ` +
      `${CONNECTIONS} connections, ${DURATION_S} s per run after ${WARMUP_S} s warm-up, pool ${POOL_SIZE}; ` +
      `${ROUNDS} rounds, the order alternating\n`,
  );
  console.log(
    '| round | no key 2xx/s: without / with the list indexes (ratio) | unique keys 2xx/s: without / with (ratio) | p99 at 1,000/s: without / with | PostgreSQL CPU µs per request, no key: without / with |',
  );
  console.log('|---|---|---|---|---|');
  for (const [i, r] of rows.entries())
    console.log(
      `| ${i + 1} | ${fmt(r.without.plain.perSecond)} / ${fmt(r.with.plain.perSecond)} (${(r.with.plain.perSecond / r.without.plain.perSecond).toFixed(2)}) | ${fmt(r.without.keyed.perSecond)} / ${fmt(r.with.keyed.perSecond)} (${(r.with.keyed.perSecond / r.without.keyed.perSecond).toFixed(2)}) | ${r.without.fixed.p99} / ${r.with.fixed.p99} ms | ${r.without.plain.postgresCpuUs} / ${r.with.plain.postgresCpuUs} |`,
    );
  const plain = median(rows.map((r) => r.with.plain.perSecond / r.without.plain.perSecond));
  const keyed = median(rows.map((r) => r.with.keyed.perSecond / r.without.keyed.perSecond));
  console.log(
    `\nmedians of ${ROUNDS} rounds, with the list indexes over without: ${plain.toFixed(2)} without a key, ${keyed.toFixed(2)} with unique keys (target ≥ 0.95)`,
  );
}

/**
 * BENCH_BATCH=1: POST /v1/send/batch of 100 items against single sends of POST /v1/send, the same
 * app, alternating: the time of one request alone (one connection: the mean from requests/s, p50,
 * p99) and accepted sends per second under load (32 connections: items/s against sends/s). Each
 * round also times the bare server's single send and batch (one INSERT of one row, one INSERT of
 * 100 rows from JSON, into a table with the messages table's columns and indexes): the floor of
 * the batch's time against a single send's for any server writing a row per message there.
 */
async function compareBatch() {
  const db = await createDatabase();
  benchDatabaseUrl = db.url;
  const BATCH = 100;
  const rows: { single1: Row; batch1: Row; singleN: Row; batchN: Row; bareSingle: Row; bareBatch: Row }[] =
    [];
  /** Mean time of one request alone, ms, from a one-connection run's requests per second. */
  const ms = (r: Row) => 1000 / Math.max(1, r.perSecond);
  try {
    // Both servers up for the whole run (the one not measured is idle); each round measures the
    // bare server right after the app, so a round's figures are minutes apart at most.
    const app = await startChild('app', db.url);
    const bare = await startChild('baseline', db.url);
    const apiKey = app.apiKey!;
    // A rate limit the batches never reach: the plan's is 1,000,000 a second.
    const run = (name: string, batch: number | undefined, connections: number) =>
      measure(name, app, { apiKey, ...(batch && { batch }), connections });
    for (let i = 0; i < ROUNDS; i++) {
      console.error(`round ${i + 1}…`);
      const single1 = await run('single sends, 1 connection', undefined, 1);
      const batch1 = await run(`batches of ${BATCH}, 1 connection`, BATCH, 1);
      const batchN = await run(`batches of ${BATCH}, ${CONNECTIONS} connections`, BATCH, CONNECTIONS);
      const singleN = await run(`single sends, ${CONNECTIONS} connections`, undefined, CONNECTIONS);
      const bareSingle = await measure('bare server: one row per request, 1 connection', bare, {
        connections: 1,
      });
      const bareBatch = await measure(`bare server: ${BATCH} rows per request, 1 connection`, bare, {
        batch: BATCH,
        connections: 1,
      });
      rows.push({ single1, batch1, singleN, batchN, bareSingle, bareBatch });
    }
    await stopChild(app.child);
    await stopChild(bare.child);
  } finally {
    await db.drop();
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const fmt = (n: number) => n.toLocaleString('en-US');
  console.log(
    `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, PostgreSQL ${db.serverVersion}; ` +
      `${DURATION_S} s per run after ${WARMUP_S} s warm-up, pool ${POOL_SIZE}; ${ROUNDS} rounds; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  console.log(
    `| round | one request alone, mean (p50 / p99) ms: single send / batch of ${BATCH} (ratio) | the bare server alone, mean ms: one row / ${BATCH} rows (ratio) | under load (${CONNECTIONS} connections): sends/s single / items/s batch (ratio) |`,
  );
  console.log('|---|---|---|---|');
  const t = (r: Row) => `${ms(r).toFixed(2)} (${r.p50} / ${r.p99})`;
  for (const [i, r] of rows.entries())
    console.log(
      `| ${i + 1} | ${t(r.single1)} · ${t(r.batch1)} (${(ms(r.batch1) / ms(r.single1)).toFixed(2)}) | ${ms(r.bareSingle).toFixed(2)} · ${ms(r.bareBatch).toFixed(2)} (${(ms(r.bareBatch) / ms(r.bareSingle)).toFixed(2)}) | ${fmt(r.singleN.perSecond)} / ${fmt(r.batchN.perSecond * BATCH)} (${((r.batchN.perSecond * BATCH) / r.singleN.perSecond).toFixed(2)}) |`,
    );
  const time = median(rows.map((r) => ms(r.batch1) / ms(r.single1)));
  const floor = median(rows.map((r) => ms(r.bareBatch) / ms(r.bareSingle)));
  const floorOverSend = median(rows.map((r) => ms(r.bareBatch) / ms(r.single1)));
  const rate = median(rows.map((r) => (r.batchN.perSecond * BATCH) / r.singleN.perSecond));
  console.log(
    `\nmedians of ${ROUNDS} rounds: a batch of ${BATCH} takes ${time.toFixed(2)}× a single send's time (target ≤ 2×); ` +
      `the bare server's ${BATCH} rows take ${floor.toFixed(2)}× its one row, and ${floorOverSend.toFixed(2)}× mailsvc's single send; ` +
      `${rate.toFixed(1)}× the sends per second under load`,
  );
}

async function main() {
  if (process.env.BENCH_COMPARE_LIST_INDEXES === '1') return compareListIndexes();
  if (process.env.BENCH_BATCH === '1') return compareBatch();
  const db = await createDatabase();
  benchDatabaseUrl = db.url;
  const rounds: Round[] = [];
  try {
    // Rounds alternate which server goes first (the machine warms up within a run).
    for (let i = 0; i < ROUNDS; i++) {
      console.error(`round ${i + 1}…`);
      if (i % 2 === 0) {
        const b = await measureBaseline(db.url);
        rounds.push({ ...b, ...(await measureApp(db.url, i % 4 === 2)) });
      } else {
        const a = await measureApp(db.url, i % 4 === 1);
        rounds.push({ ...(await measureBaseline(db.url)), ...a });
      }
    }
  } finally {
    await db.drop();
  }

  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const cpu = os.cpus()[0]?.model ?? 'cpu';
  console.log(
    `node ${process.version}, ${cpu}, ${os.cpus().length} cores, PostgreSQL ${db.serverVersion}; ` +
      `${CONNECTIONS} connections, ${DURATION_S} s per run after ${WARMUP_S} s warm-up, pool ${POOL_SIZE}; ` +
      `${ROUNDS} rounds, the order of the two servers alternating\n`,
  );
  console.log(
    '| round | baseline 2xx/s | no key 2xx/s (ratio) | unique keys 2xx/s (ratio) | refused 403/s (ratio), commits per refusal | p99 at 1,000/s: baseline / mailsvc | CPU µs per request, server + PostgreSQL: baseline / no key / keys |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const cpuOf = (r: Row) => `${r.serverCpuUs} + ${r.postgresCpuUs}`;
  for (const [i, r] of rounds.entries()) {
    console.log(
      `| ${i + 1} | ${fmt(r.baseline.perSecond)} | ${fmt(r.plain.perSecond)} (${(r.plain.perSecond / r.baseline.perSecond).toFixed(2)}) | ${fmt(r.keyed.perSecond)} (${(r.keyed.perSecond / r.baseline.perSecond).toFixed(2)}) | ${fmt(r.refused.perSecond)} (${(r.refused.perSecond / r.baseline.perSecond).toFixed(2)}), ${r.refused.commits} | ${r.baselineFixed.p99} / ${r.fixed.p99} ms | ${cpuOf(r.baseline)} / ${cpuOf(r.plain)} / ${cpuOf(r.keyed)} |`,
    );
  }
  const plainRatio = median(rounds.map((r) => r.plain.perSecond / r.baseline.perSecond));
  const keyedRatio = median(rounds.map((r) => r.keyed.perSecond / r.baseline.perSecond));
  const p99Ratio = median(rounds.map((r) => r.fixed.p99 / r.baselineFixed.p99));
  const refusedRatio = median(rounds.map((r) => r.refused.perSecond / r.baseline.perSecond));
  const failures = rounds.reduce(
    (n, r) =>
      n + r.baseline.failures + r.plain.failures + r.keyed.failures + r.fixed.failures + r.refused.failures,
    0,
  );
  console.log(
    `\nmedians of ${ROUNDS} rounds: ratio real/baseline ${plainRatio.toFixed(2)} without a key, ` +
      `${keyedRatio.toFixed(2)} with unique keys (target ≥ 0.75); p99 at ${OFFERED_RATE}/s offered ` +
      `${p99Ratio.toFixed(2)}× the baseline's (target ≤ 2×); refused sends ${refusedRatio.toFixed(2)} of the ` +
      `baseline's requests/s; unexpected answers + errors in all runs: ${failures}`,
  );
}

const [role, databaseUrl] = process.argv.slice(2);
if (role === 'baseline' || role === 'app') {
  const ready = await (role === 'baseline' ? serveBaseline(databaseUrl!) : serveApp(databaseUrl!));
  process.send!(ready);
} else {
  await main();
}
