// The 10,000,000 messages the scale benchmarks read (bench/messages-list.ts, bench/console.ts): the
// real table with the real indexes, 50 environments over the 90 days before 2026-11-28, made by
// generate_series in one database kept between runs (mailsvc_bench_list; BENCH_REBUILD=1 makes it
// again; BENCH_MESSAGES sets the count; BENCH_DATABASE_URL the server).
import pg from 'pg';
import { migrate } from '../packages/server/src/db/migrate.js';

export const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DB_NAME = 'mailsvc_bench_list';
export const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000_000);
export const ENVIRONMENTS = 50;
export const DAYS = 90;
export const RECIPIENTS_PER_ENV = 20_000;
export const USERS_PER_ENV = 20_000;
export const JOBS_PER_ENV = 40;
export const START_MS = Date.UTC(2026, 7, 30); // 90 days before 2026-11-28
export const TEMPLATES = [
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
export const FLOWS = ['signup', 'reset', 'billing', 'digest', 'security'];

export const envId = (i: number) => `env_BENCH${String(i).padStart(2, '0')}`;

export function urlOf(name: string): string {
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The bulk jobs the messages name (the list looks a job up in its environment). */
export async function ensureJobs(): Promise<void> {
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

export async function ensureData(): Promise<void> {
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
