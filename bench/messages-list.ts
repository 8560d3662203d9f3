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
import { listMessagePage, type MessageListFilter } from '../packages/server/src/db/repositories/messages.js';
import type { Db } from '../packages/server/src/db/schema.js';

import {
  DAYS,
  DB_NAME,
  ENVIRONMENTS,
  ensureData,
  ensureJobs,
  envId,
  FLOWS,
  JOBS_PER_ENV,
  MESSAGES,
  RECIPIENTS_PER_ENV,
  START_MS,
  USERS_PER_ENV,
  urlOf,
} from './message-data.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
/** Cursor walks of 100 pages per filter. */
const WALKS = Number(process.env.BENCH_WALKS ?? 60);
const PAGE = 51;

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
