// The console's first page at 10,000,000 messages (issue 29): what the overview asks when a member
// opens the console, against the data of bench/messages-list.ts (PostgreSQL, 50 environments over
// 90 days, the real indexes), through the API process over HTTP: GET /console (the page),
// GET /console/api/me, POST /console/api/credentials, then together GET /v1/quota,
// POST /v1/stats/daily (30 days), POST /v1/domains/list and POST /v1/messages/list (50), each
// environment's owner signed in as a member. Baseline in the same run, alternating: the bare
// `SELECT … WHERE environment_id = $1 ORDER BY id DESC LIMIT 50` of messages-list.ts.
// Run: npx tsx bench/console.ts   (BENCH_SAMPLES, default 200; the data as bench/message-data.ts)
import os from 'node:os';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { buildApp } from '../packages/server/src/api/app.js';
import { loadConfig } from '../packages/server/src/config.js';
import { inviteMember } from '../packages/server/src/domain/console/members.js';
import { createLogger } from '../packages/server/src/logger.js';
import { openRuntime } from '../packages/server/src/runtime.js';
import { DB_NAME, ENVIRONMENTS, ensureData, ensureJobs, envId, MESSAGES, urlOf } from './message-data.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const NOW = '2026-11-28T12:00:00.000Z';

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const ms = (x: number) => x.toFixed(1);

async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const value = await f();
  return [Number(process.hrtime.bigint() - t) / 1e6, value];
}

/** The tenants, projects and environments the generated messages name, and a plan for them. */
async function ensureScopes(db: import('../packages/server/src/db/schema.js').Db) {
  await sql`INSERT INTO plans (id, monthly_limit) VALUES ('bench', 100000000) ON CONFLICT DO NOTHING`.execute(
    db,
  );
  for (let e = 0; e < ENVIRONMENTS; e++) {
    await sql`INSERT INTO tenants (id, name, plan_id) VALUES (${`ten_${e}`}, ${`Bench ${e}`}, 'bench') ON CONFLICT DO NOTHING`.execute(
      db,
    );
    await sql`INSERT INTO projects (id, tenant_id, name) VALUES (${`prj_${e}`}, ${`ten_${e}`}, 'Bench App') ON CONFLICT DO NOTHING`.execute(
      db,
    );
    await sql`INSERT INTO environments (id, tenant_id, project_id, name)
              VALUES (${envId(e)}, ${`ten_${e}`}, ${`prj_${e}`}, 'production') ON CONFLICT DO NOTHING`.execute(
      db,
    );
  }
}

async function main() {
  await ensureData();
  await ensureJobs();
  const config = loadConfig({
    DATABASE_URL: urlOf(DB_NAME),
    MAILSVC_DATA_DIR: os.tmpdir(),
    MAILSVC_TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
  });
  const log = createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() }));
  // The data's last day is NOW's: the clock runs from there (sign-in codes and sessions need time to pass).
  const offset = Date.parse(NOW) - Date.now();
  const clock = { now: () => new Date(Date.now() + offset) };
  const runtime = await openRuntime(config, { command: 'bench', log, clock, servesHttp: true });
  const { deps } = runtime;
  await ensureScopes(deps.db);
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as import('node:net').AddressInfo).port}`;

  const codeMails = (email: string) =>
    deps.db
      .selectFrom('messages')
      .select('data')
      .where('to_email', '=', email)
      .where('template_id', '=', 'login-code')
      .orderBy('id', 'desc')
      .execute();
  // One owner per environment, signed in through the routes (the code read back from its mail).
  const sessions: { cookie: string; csrf: string }[] = [];
  for (let e = 0; e < ENVIRONMENTS; e++) {
    const email = `owner${e}@bench.example.com`;
    await deps.db.deleteFrom('members').where('email', '=', email).execute();
    await inviteMember(
      deps,
      { kind: 'operator', name: 'bench' },
      { tenantId: `ten_${e}`, email, role: 'owner' },
    );
    const client = { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${e}.1` };
    const before = (await codeMails(email)).length;
    await fetch(`${base}/console/api/sign-in/start`, {
      method: 'POST',
      headers: client,
      body: JSON.stringify({ email }),
    });
    // the code is mailed after the answer: wait for a message newer than those of earlier runs
    let row: { data: unknown } | undefined;
    for (let i = 0; !row && i < 500; i++) {
      const rows = await codeMails(email);
      if (rows.length > before) row = rows[0];
      else await new Promise((r) => setTimeout(r, 10));
    }
    if (!row) throw new Error(`no sign-in code for ${email}`);
    const code = (row.data as { code: string }).code;
    const verified = await fetch(`${base}/console/api/sign-in/verify`, {
      method: 'POST',
      headers: client,
      body: JSON.stringify({ email, code }),
    });
    const cookie = verified.headers.get('set-cookie')!.split(';')[0]!;
    const me = (await (await fetch(`${base}/console/api/me`, { headers: { cookie } })).json()) as {
      csrfToken: string;
    };
    sessions.push({ cookie, csrf: me.csrfToken });
  }

  const post = (url: string, key: string, body: unknown) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => {
      if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
      return r.json();
    });
  const parts: Record<string, number[]> = {
    page: [],
    me: [],
    credentials: [],
    quota: [],
    stats: [],
    domains: [],
    messages: [],
  };
  /** The overview as the page asks for it; the time of each call is noted under its name. */
  async function firstPage(e: number, note: boolean) {
    const s = sessions[e]!;
    const step = async <T>(name: string, f: () => Promise<T>) => {
      const [t, v] = await timed(f);
      if (note) parts[name]!.push(t);
      return v;
    };
    await step('page', () => fetch(`${base}/console/`).then((r) => r.text()));
    await step('me', () =>
      fetch(`${base}/console/api/me`, { headers: { cookie: s.cookie } }).then((r) => r.json()),
    );
    const cred = (await step('credentials', () =>
      fetch(`${base}/console/api/credentials`, {
        method: 'POST',
        headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ environmentId: envId(e) }),
      }).then((r) => r.json()),
    )) as { apiKey: string };
    await Promise.all([
      step('quota', () =>
        fetch(`${base}/v1/quota`, { headers: { authorization: `Bearer ${cred.apiKey}` } }).then((r) =>
          r.json(),
        ),
      ),
      step('stats', () => post('/v1/stats/daily', cred.apiKey, { days: 30 })),
      step('domains', () => post('/v1/domains/list', cred.apiKey, {})),
      step('messages', () => post('/v1/messages/list', cred.apiKey, { pageSize: 50 })),
    ]);
  }
  const bare = (e: number) =>
    sql`SELECT id, template_id, status, created_at, to_email FROM messages WHERE environment_id = ${envId(e)} ORDER BY id DESC LIMIT 50`.execute(
      deps.db,
    );

  for (let e = 0; e < ENVIRONMENTS; e++) await firstPage(e, false); // warm: each environment once
  const pages: number[] = [];
  const bares: number[] = [];
  for (let n = 0; n < SAMPLES; n++) {
    const e = (n * 7) % ENVIRONMENTS;
    const pageFirst = n % 2 === 0;
    if (!pageFirst) bares.push((await timed(() => bare(e)))[0]);
    pages.push((await timed(() => firstPage(e, true)))[0]);
    if (pageFirst) bares.push((await timed(() => bare(e)))[0]);
  }
  console.log(
    `console first page, ${MESSAGES.toLocaleString('en')} messages, ${SAMPLES} samples over ${ENVIRONMENTS} environments (load ${os.loadavg()[0]!.toFixed(2)})`,
  );
  console.log('| what | p50 ms | p95 ms | max ms |');
  console.log('|---|---|---|---|');
  const row = (name: string, xs: number[]) =>
    console.log(`| ${name} | ${ms(pct(xs, 0.5))} | ${ms(pct(xs, 0.95))} | ${ms(Math.max(...xs))} |`);
  row('**first page in all**', pages);
  for (const [name, xs] of Object.entries(parts)) row(name, xs);
  row('bare SELECT … LIMIT 50 (baseline)', bares);
  console.log(`first page p95 ÷ bare p95: ${(pct(pages, 0.95) / pct(bares, 0.95)).toFixed(1)}`);
  await app.close();
  await runtime.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
