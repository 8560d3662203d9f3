// Accepted sends per second through the real POST /v1/send on PostgreSQL, as a ratio of a bare
// server measured in the same run (Fastify + one INSERT … RETURNING id per request, same pool
// size), then p99 latency at a fixed offered load of 1,000 requests/s. Accept only: the delivery
// worker does not run. Each server runs in a child process so that autocannon (in this process)
// does not share its event loop. A temporary database is created and dropped.
// Run: npx tsx bench/accept.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
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

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const POOL_SIZE = 10; // MAILSVC_DB_POOL_SIZE's default, for both servers
const CONNECTIONS = 32;
const WARMUP_S = 3;
const DURATION_S = 10;
const OFFERED_RATE = 1000;

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
  await admin('plans.create', {
    id: 'bench',
    monthlyLimit: 100_000_000,
    overageAllowed: false,
    rateLimitPerSecond: 1_000_000,
    rateLimitBurst: 1_000_000,
  });
  const { tenant } = await admin('tenants.create', { name: 'Bench', plan: 'bench' });
  const { project } = await admin('projects.create', { tenant: tenant.id, name: 'Bench App' });
  const { environment } = await admin('environments.create', { project: project.id, name: 'production' });
  const { apiKey } = await admin('keys.create', { environment: environment.id });
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
  opts: { apiKey?: string; idempotency?: boolean; duration: number; overallRate?: number },
): Promise<Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: opts.duration,
    ...(opts.overallRate && { overallRate: opts.overallRate }),
    requests: [
      {
        method: 'POST',
        path: '/v1/send',
        setupRequest: (req) => {
          const n = ++sequence;
          return {
            ...req,
            headers: {
              'content-type': 'application/json',
              ...(opts.apiKey && { authorization: `Bearer ${opts.apiKey}` }),
              ...(opts.idempotency && { 'idempotency-key': `bench-${process.pid}-${n}` }),
            },
            body: JSON.stringify({
              templateId: 'login-code',
              to: `user${n}@example.com`,
              data: { code: String(100000 + (n % 900000)) },
            }),
          };
        },
      },
    ],
  });
}

interface Row {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

async function measure(
  name: string,
  port: number,
  opts: { apiKey?: string; idempotency?: boolean; overallRate?: number },
): Promise<Row> {
  if (!opts.overallRate) await load(port, { ...opts, duration: WARMUP_S });
  const r = await load(port, { ...opts, duration: DURATION_S });
  const row = {
    name,
    perSecond: Math.round(r['2xx'] / r.duration),
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    failures: r.non2xx + r.errors + r.timeouts,
  };
  console.error(
    `  ${name}: ${row.perSecond}/s p50 ${row.p50} ms p99 ${row.p99} ms, ${row.failures} failures`,
  );
  return row;
}

async function main() {
  const db = await createDatabase();
  const rows: Row[] = [];
  try {
    console.error('baseline server (Fastify + one INSERT … RETURNING id)…');
    const base = await startChild('baseline', db.url);
    rows.push(await measure('baseline: Fastify + one INSERT … RETURNING id', base.port, {}));
    rows.push(
      await measure(`baseline at ${OFFERED_RATE}/s offered`, base.port, { overallRate: OFFERED_RATE }),
    );
    await stopChild(base.child);

    console.error('real app (openRuntime + buildApp, no delivery worker)…');
    const app = await startChild('app', db.url);
    const apiKey = app.apiKey!;
    rows.push(await measure('mailsvc POST /v1/send, no Idempotency-Key', app.port, { apiKey }));
    rows.push(
      await measure('mailsvc POST /v1/send, unique Idempotency-Key', app.port, { apiKey, idempotency: true }),
    );
    rows.push(
      await measure(`mailsvc at ${OFFERED_RATE}/s offered, no Idempotency-Key`, app.port, {
        apiKey,
        overallRate: OFFERED_RATE,
      }),
    );
    await stopChild(app.child);
  } finally {
    await db.drop();
  }

  const [baseline, , plain, keyed, fixed] = rows as [Row, Row, Row, Row, Row];
  const fmt = (n: number) => n.toLocaleString('en-US');
  const cpu = os.cpus()[0]?.model ?? 'cpu';
  console.log(
    `node ${process.version}, ${cpu}, ${os.cpus().length} cores, PostgreSQL ${db.serverVersion}; ` +
      `${CONNECTIONS} connections, ${DURATION_S} s per run after ${WARMUP_S} s warm-up, pool ${POOL_SIZE}\n`,
  );
  console.log('| run | 2xx/s | p50 ms | p99 ms | max ms | non-2xx + errors | vs baseline |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const ratio =
      r.name.startsWith('mailsvc') && !r.name.includes('offered') ? r.perSecond / baseline.perSecond : NaN;
    console.log(
      `| ${r.name} | ${fmt(r.perSecond)} | ${r.p50} | ${r.p99} | ${r.max} | ${r.failures} | ${Number.isNaN(ratio) ? '' : `${(ratio * 100).toFixed(0)}%`} |`,
    );
  }
  console.log(
    `\nratio real/baseline: ${(plain.perSecond / baseline.perSecond).toFixed(2)} without a key, ` +
      `${(keyed.perSecond / baseline.perSecond).toFixed(2)} with unique keys (target ≥ 0.50); ` +
      `p99 at ${OFFERED_RATE}/s offered: ${fixed.p99} ms (target ≤ 20 ms)`,
  );
}

const [role, databaseUrl] = process.argv.slice(2);
if (role === 'baseline' || role === 'app') {
  const ready = await (role === 'baseline' ? serveBaseline(databaseUrl!) : serveApp(databaseUrl!));
  process.send!(ready);
} else {
  await main();
}
