// POST /v1/messages/list at scale (issue 26): 10,000,000 messages in the real table with the real
// indexes, spread over 50 environments and 90 days (made by generate_series in one database kept
// between runs: mailsvc_bench_list), 60% of them with metadata and 10% in bulk sends. Each filter's
// first page, through the list's own query (db/repositories/messages.ts listMessagePage, 51 rows:
// a page of 50 and one more), against a bare `SELECT … WHERE environment_id = $1 ORDER BY id DESC
// LIMIT 51` of the same columns, the two alternating, many environments and values, p50/p95/max;
// then page 1 against page 100 of cursor walks; then EXPLAIN (ANALYZE, BUFFERS) of each first page.
// Run: npx tsx bench/messages-list.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_MESSAGES, default 10000000; BENCH_REBUILD=1 makes the data again; BENCH_SAMPLES per filter, default 200;
// BENCH_WALKS, default 60; BENCH_COLD=1 measures without running each filter's queries once first)
import os from 'node:os';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrate } from '../packages/server/src/db/migrate.js';
import { listMessagePage, type MessageListFilter } from '../packages/server/src/db/repositories/messages.js';
import type { Db } from '../packages/server/src/db/schema.js';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'mailsvc_bench_list';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
/** Cursor walks of 100 pages per filter. */
const WALKS = Number(process.env.BENCH_WALKS ?? 60);
const ENVIRONMENTS = 50;
const DAYS = 90;
const RECIPIENTS_PER_ENV = 20_000;
const USERS_PER_ENV = 20_000;
const JOBS_PER_ENV = 40;
const START_MS = Date.UTC(2026, 7, 30); // 90 days before 2026-11-28
const PAGE = 51;
const TEMPLATES = [
  'login-code',
  'password-reset',
  'welcome',
  'receipt',
  'invoice',
  'mention',
  'reminder',
  'email-change',
  'magic-link',
  'trial-ending',
  'weekly-digest',
  'account-deleted',
];
const FLOWS = ['signup', 'reset', 'billing', 'digest', 'security'];

const envId = (i: number) => `env_BENCH${String(i).padStart(2, '0')}`;

function urlOf(name: string): string {
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The bulk jobs the messages name (the list looks a job up in its environment). */
async function ensureJobs(): Promise<void> {
  const c = new pg.Client({ connectionString: urlOf(DB_NAME) });
  await c.connect();
  await c.query(`
    INSERT INTO bulk_jobs (id, tenant_id, project_id, environment_id, template_id, template_version,
                           category, target, queued, skipped, created_at, updated_at)
    SELECT 'job_' || e || '_' || j, 'ten_' || e, 'prj_' || e, 'env_BENCH' || lpad(e::text, 2, '0'),
           'reminder', 'v1', 'notification', '{"contactCount": 0}', 0, '{}', now(), now()
      FROM generate_series(0, ${ENVIRONMENTS - 1}) e, generate_series(0, ${JOBS_PER_ENV - 1}) j
    ON CONFLICT (id) DO NOTHING`);
  await c.end();
}

async function ensureData(): Promise<void> {
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  const exists =
    (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME])).rowCount === 1;
  if (exists && process.env.BENCH_REBUILD !== '1') {
    const c = new pg.Client({ connectionString: urlOf(DB_NAME) });
    await c.connect();
    const ready = await c
      .query<{ n: string }>('SELECT n FROM bench_ready')
      .then((r) => Number(r.rows[0]?.n))
      .catch(() => 0);
    await c.end();
    if (ready === MESSAGES) {
      await admin.end();
      console.error(`reusing ${DB_NAME} (${MESSAGES.toLocaleString('en')} messages)`);
      return;
    }
  }
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: urlOf(DB_NAME), max: 1 });
  await migrate(pool);
  const c = await pool.connect();
  const t0 = Date.now();
  const step = async (label: string, text: string) => {
    const t = Date.now();
    await c.query(text);
    console.error(`  ${label}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  try {
    // The indexes are built after the rows, as a restore would (the same definitions).
    const { rows: indexes } = await c.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE tablename IN ('messages', 'message_metadata') AND indexname NOT LIKE '%_pkey'`,
    );
    for (const i of indexes) await c.query(`DROP INDEX ${i.name}`);
    await c.query('ALTER TABLE message_metadata DROP CONSTRAINT message_metadata_pkey');
    await c.query("SET maintenance_work_mem = '1GB'");
    await c.query('SET synchronous_commit = off');
    // Row g, in time order (a message every ~0.78 s, interleaved across environments as
    // accepts are): its environment, recipient, template (skewed: a few templates carry most
    // mail), status (70% sent, 20% delivered, 3% bounced, …), bulk send (10%), metadata (60%);
    // what varies per message is drawn from its number within its environment.
    await step(
      `messages (${MESSAGES.toLocaleString('en')})`,
      `INSERT INTO messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
                             template_version, category, priority, to_email, from_email,
                             sending_domain, status, attempts, next_attempt_at, expires_at,
                             created_at, updated_at, sent_at, bulk_job_id, metadata)
       SELECT 'msg_' || substr(crockford32(ms >> 40), 7, 2) || crockford32(ms & 1099511627775)
                || ulid_random_part(gen_random_uuid()),
              'ten_' || env, 'prj_' || env, 'env_BENCH' || lpad(env::text, 2, '0'), NULL,
              (ARRAY[${TEMPLATES.map((t) => `'${t}'`).join(',')}])[1 + floor(${TEMPLATES.length} * r1 * r1)::int],
              'v1', 'transactional', 1,
              'r' || ((n * 7919) % ${RECIPIENTS_PER_ENV}) || '.' || env || '@example.com',
              'notifications@mailsvc.test', 'mailsvc.test',
              CASE WHEN r2 < 0.70 THEN 'sent' WHEN r2 < 0.90 THEN 'delivered' WHEN r2 < 0.93 THEN 'bounced'
                   WHEN r2 < 0.94 THEN 'failed' WHEN r2 < 0.95 THEN 'suppressed' WHEN r2 < 0.955 THEN 'expired'
                   WHEN r2 < 0.956 THEN 'complained' WHEN r2 < 0.96 THEN 'canceled'
                   WHEN r2 < 0.995 THEN 'sent' ELSE 'deferred' END,
              1, at, at + interval '72 hours', at, at, at,
              CASE WHEN n % 10 = 0 THEN 'job_' || env || '_' || ((n / 10) % ${JOBS_PER_ENV}) END,
              CASE WHEN n % 5 < 3 THEN jsonb_build_object(
                     'userId', 'u' || ((n * 31) % ${USERS_PER_ENV}),
                     'flow', (ARRAY[${FLOWS.map((f) => `'${f}'`).join(',')}])[1 + (n / 7) % 5]) END
         FROM generate_series(1::bigint, ${MESSAGES}::bigint) g,
              -- env: the environment; n: the message's number within it
              LATERAL (SELECT (g % ${ENVIRONMENTS}) AS env, (g / ${ENVIRONMENTS}) AS n, random() AS r1, random() AS r2,
                              (${START_MS}::bigint + g * ${Math.floor((DAYS * 86_400_000) / MESSAGES)}::bigint) AS ms) x,
              LATERAL (SELECT to_timestamp(x.ms / 1000.0) AS at) y`,
    );
    await step(
      'message_metadata',
      `INSERT INTO message_metadata (environment_id, key, value, message_id)
       SELECT m.environment_id, kv.key, kv.value, m.id
         FROM messages m CROSS JOIN LATERAL jsonb_each_text(m.metadata) kv WHERE m.metadata IS NOT NULL`,
    );
    await step(
      'message_metadata primary key',
      'ALTER TABLE message_metadata ADD PRIMARY KEY (environment_id, key, value, message_id)',
    );
    for (const i of indexes) await step(i.name, i.def);
    await step('VACUUM ANALYZE', 'VACUUM ANALYZE messages, message_metadata');
    await c.query(`CREATE TABLE bench_ready AS SELECT ${MESSAGES}::bigint AS n`);
    console.error(`data made in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    c.release();
    await pool.end();
  }
}

interface Kind {
  name: string;
  /** A filter for this environment and sample number. */
  filter: (env: number, n: number) => MessageListFilter;
}

const day = (d: number) => new Date(START_MS + d * 86_400_000);
const KINDS: Kind[] = [
  { name: 'no filter', filter: () => ({}) },
  { name: 'status: sent (~74%)', filter: () => ({ statuses: ['sent'] }) },
  { name: 'status: complained (0.1%)', filter: () => ({ statuses: ['complained'] }) },
  {
    name: 'status: bounced, failed, complained',
    filter: () => ({ statuses: ['bounced', 'complained', 'failed'] }),
  },
  { name: 'templateId: login-code (~29%)', filter: () => ({ templateId: 'login-code' }) },
  { name: 'templateId: account-deleted (~1%)', filter: () => ({ templateId: 'account-deleted' }) },
  {
    name: 'to: one recipient (~10 messages)',
    filter: (env, n) => ({ toEmail: `r${(n * 7919) % RECIPIENTS_PER_ENV}.${env}@example.com` }),
  },
  {
    name: 'createdAfter + createdBefore: one day',
    filter: (_env, n) => ({ createdAfter: day(1 + (n % 80)), createdBefore: day(2 + (n % 80)) }),
  },
  { name: 'createdBefore: 45 days ago', filter: () => ({ createdBefore: day(45) }) },
  {
    name: 'metadata: userId (~6 messages)',
    filter: (_env, n) => ({ metadata: [['userId', `u${(n * 97) % USERS_PER_ENV}`]] }),
  },
  { name: 'metadata: flow (~12%)', filter: (_env, n) => ({ metadata: [['flow', FLOWS[n % 5]!]] }) },
  {
    name: 'metadata: flow + userId',
    filter: (_env, n) => ({
      metadata: [
        ['flow', FLOWS[n % 5]!],
        ['userId', `u${(n * 97) % USERS_PER_ENV}`],
      ],
    }),
  },
  {
    name: 'bulkJobId (~500 messages)',
    filter: (env, n) => ({ bulkJobId: `job_${env}_${n % JOBS_PER_ENV}` }),
  },
  {
    name: 'status + templateId + createdAfter',
    filter: (_env, n) => ({
      statuses: ['delivered', 'sent'],
      templateId: 'welcome',
      createdAfter: day(n % 80),
    }),
  },
];

const COLUMNS = sql.raw(
  'id, template_id, template_version, status, created_at, updated_at, sent_at, delivered_at, bulk_job_id, last_error, metadata, to_email',
);
const bare = (db: Db, env: string) =>
  sql`SELECT ${COLUMNS} FROM messages WHERE environment_id = ${env} ORDER BY id DESC LIMIT ${PAGE}`.execute(
    db,
  );

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const ms = (x: number) => x.toFixed(2);

async function main() {
  await ensureData();
  await ensureJobs();
  const pool = new pg.Pool({ connectionString: urlOf(DB_NAME), max: 1 });
  const logged: { sql: string; parameters: readonly unknown[] }[] = [];
  let logging = false;
  const db = new Kysely({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      if (logging && e.level === 'query') logged.push({ sql: e.query.sql, parameters: e.query.parameters });
    },
  }) as unknown as Db;
  const { rows: version } = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(
    db,
  );
  const { rows: sizes } = await sql<{ rel: string; size: string }>`
    SELECT relname AS rel, pg_size_pretty(pg_total_relation_size(oid)) AS size FROM pg_class
     WHERE relname IN ('messages', 'message_metadata')`.execute(db);

  // Warm: every kind once on every environment, unmeasured.
  for (let e = 0; e < ENVIRONMENTS; e++)
    for (const k of KINDS) await listMessagePage(db, envId(e), k.filter(e, e), undefined, PAGE);

  console.log(
    `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, PostgreSQL ${version[0]!.v}; ` +
      `${MESSAGES.toLocaleString('en')} messages in ${ENVIRONMENTS} environments over ${DAYS} days ` +
      `(${sizes.map((s) => `${s.rel} ${s.size} with its indexes`).join(', ')}); ` +
      `${SAMPLES} samples per filter, each beside a bare query of the same environment, order alternating; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
  );
  console.log('| first page of | p50 ms | p95 ms | max ms | bare p50 / p95 ms | p95 ratio | rows |');
  console.log('|---|---|---|---|---|---|---|');
  const results: { name: string; ratio: number }[] = [];
  for (const k of KINDS) {
    const list: number[] = [];
    const base: number[] = [];
    let rows = 0;
    // The same queries once, unmeasured: both sides are then read from shared buffers, as the
    // bare query of the newest messages always is (an old day's pages would otherwise come from
    // the OS cache and measure the cache, not the query: figures of a cold run in RESULTS.md).
    if (process.env.BENCH_COLD !== '1')
      for (let n = 0; n < SAMPLES; n++)
        await listMessagePage(
          db,
          envId((n * 7) % ENVIRONMENTS),
          k.filter((n * 7) % ENVIRONMENTS, n),
          undefined,
          PAGE,
        );
    for (let n = 0; n < SAMPLES; n++) {
      const e = (n * 7) % ENVIRONMENTS;
      const f = k.filter(e, n);
      const runList = async () => {
        list.push(
          await timed(async () => {
            rows += (await listMessagePage(db, envId(e), f, undefined, PAGE)).length;
          }),
        );
      };
      const runBare = async () => {
        base.push(await timed(() => bare(db, envId(e))));
      };
      if (n % 2 === 0) {
        await runList();
        await runBare();
      } else {
        await runBare();
        await runList();
      }
    }
    const ratio = pct(list, 0.95) / pct(base, 0.95);
    results.push({ name: k.name, ratio });
    console.log(
      `| ${k.name} | ${ms(pct(list, 0.5))} | ${ms(pct(list, 0.95))} | ${ms(Math.max(...list))} | ${ms(pct(base, 0.5))} / ${ms(pct(base, 0.95))} | **${ratio.toFixed(2)}** | ${(rows / SAMPLES).toFixed(1)} |`,
    );
  }

  // Page 100 of a cursor walk against page 1, the same walks.
  console.log('\n| cursor walk | page 1 p50 / p95 ms | page 100 p50 / p95 ms | p95 ratio |');
  console.log('|---|---|---|---|');
  const walks: Kind[] = [KINDS[0]!, KINDS[1]!, KINDS[4]!, KINDS[10]!, KINDS[8]!];
  const walkRatios: number[] = [];
  for (const k of walks) {
    const first: number[] = [];
    const hundredth: number[] = [];
    // Each walk twice, the second measured: page 1 and page 100 equally warm (see above).
    for (let n = 0; n < 2 * WALKS; n++) {
      const isMeasured = n % 2 === 1;
      const e = (Math.floor(n / 2) * 11) % ENVIRONMENTS;
      const f = k.filter(e, Math.floor(n / 2));
      let before: string | undefined;
      for (let page = 1; page <= 100; page++) {
        let last: string | undefined;
        const t = await timed(async () => {
          const rows = await listMessagePage(db, envId(e), f, before, PAGE);
          last = rows[PAGE - 2]?.id;
        });
        if (isMeasured && page === 1) first.push(t);
        if (isMeasured && page === 100) hundredth.push(t);
        if (last === undefined) {
          if (isMeasured && page < 100) console.error(`  ${k.name}: environment ${e} has ${page} pages only`);
          break;
        }
        before = last;
      }
    }
    const ratio = pct(hundredth, 0.95) / pct(first, 0.95);
    walkRatios.push(ratio);
    console.log(
      `| ${k.name} | ${ms(pct(first, 0.5))} / ${ms(pct(first, 0.95))} | ${hundredth.length ? `${ms(pct(hundredth, 0.5))} / ${ms(pct(hundredth, 0.95))}` : '—'} | **${ratio.toFixed(2)}** |`,
    );
  }

  // The plans.
  console.log('\n### Plans (EXPLAIN (ANALYZE, BUFFERS, COSTS OFF), environment 7, first page)\n');
  const explainer = new pg.Client({ connectionString: urlOf(DB_NAME) });
  await explainer.connect();
  try {
    for (const k of [{ name: 'bare', filter: () => ({}) }, ...KINDS]) {
      logged.length = 0;
      logging = true;
      if (k.name === 'bare') await bare(db, envId(7));
      else await listMessagePage(db, envId(7), k.filter(7, 3), undefined, PAGE);
      logging = false;
      const q = logged.at(-1)!;
      const { rows } = await explainer.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q.sql}`,
        q.parameters as unknown[],
      );
      console.log(`${k.name}:\n\n\`\`\`\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\`\n`);
    }
  } finally {
    await explainer.end();
  }
  await db.destroy();

  const worst = results.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  console.log(
    `Target: every filter's p95 ≤ 3× the bare query's — worst ${worst.name} at ${worst.ratio.toFixed(2)}× (${worst.ratio <= 3 ? 'met' : 'NOT met'}); page 100 ≤ 1.5× page 1 — worst ${Math.max(...walkRatios).toFixed(2)}× (${Math.max(...walkRatios) <= 1.5 ? 'met' : 'NOT met'}).`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
