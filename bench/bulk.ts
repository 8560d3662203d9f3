// A bulk send to a 100,000-contact group on PostgreSQL, end to end through HTTP (the answer comes
// after every message is committed), and its dry run, as ratios of a bare INSERT … SELECT of the
// same 100,000 rows into a copy of `messages` (LIKE … INCLUDING ALL: same columns, defaults,
// constraints and indexes) measured in the same run. Three rounds; medians. A temporary database
// is created and dropped.
// Run: npx tsx bench/bulk.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../packages/server/src/api/app.js';
import { loadConfig } from '../packages/server/src/config.js';
import { adminCommands } from '../packages/server/src/domain/admin/index.js';
import { createLogger } from '../packages/server/src/logger.js';
import { openRuntime } from '../packages/server/src/runtime.js';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const ROUNDS = 3;

const dbName = `mailsvc_bench_bulk_${process.pid}`;
const admin = new pg.Client({ connectionString: BASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(BASE_URL);
url.pathname = `/${dbName}`;
const databaseUrl = url.toString();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-bench-'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, MAILSVC_DATA_DIR: dataDir });
  const log = createLogger('warn', pino.destination({ dest: '/dev/null', sync: false }));
  const runtime = await openRuntime(config, { command: 'bench', log });
  const run = (name: string, input: Record<string, unknown>) =>
    // biome-ignore lint/suspicious/noExplicitAny: admin results are read loosely here
    adminCommands[name]!.run(runtime.deps, input as never, 'bench') as Promise<any>;
  await run('plans.create', { id: 'bench', monthlyLimit: 100_000_000, overageAllowed: false });
  const { tenant } = await run('tenants.create', { name: 'Bench', plan: 'bench' });
  const { project } = await run('projects.create', { tenant: tenant.id, name: 'Bench App' });
  const { environment } = await run('environments.create', { project: project.id, name: 'production' });
  const { apiKey } = await run('keys.create', { environment: environment.id });
  const app = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

  const sqlc = new pg.Client({ connectionString: databaseUrl });
  await sqlc.connect();
  // The group: CONTACTS contacts, a few of them ineligible as a real list would be.
  const seedStart = performance.now();
  await sqlc.query(
    `INSERT INTO contacts (id, tenant_id, email, name, custom_fields, created_at, updated_at)
     SELECT 'ct_01JBENCH' || crockford32(i) || 'ZZZZZZZZ', $1, 'user-' || i || '@example.com', 'User ' || i,
            jsonb_build_object('plan', 'pro'), now(), now()
       FROM generate_series(1, $2) AS i`,
    [tenant.id, CONTACTS],
  );
  await sqlc.query(
    `INSERT INTO contact_groups (tenant_id, slug, name, created_at, updated_at)
     VALUES ($1, 'everyone', 'Everyone', now(), now())`,
    [tenant.id],
  );
  await sqlc.query(
    `INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
     SELECT $1, 'everyone', id, now() FROM contacts WHERE tenant_id = $1`,
    [tenant.id],
  );
  await sqlc.query(
    `INSERT INTO recipients (environment_id, tenant_id, email, unsubscribed_at, created_at, updated_at)
     SELECT $1, $2, 'user-' || i || '@example.com', now(), now(), now() FROM generate_series(1, $3, 100) AS i`,
    [environment.id, tenant.id, CONTACTS],
  );
  await sqlc.query('ANALYZE');
  const seedMs = performance.now() - seedStart;
  await sqlc.query('CREATE TABLE bench_messages (LIKE messages INCLUDING ALL)');

  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${p} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const body = {
    projectId: project.id,
    environmentId: environment.id,
    templateId: 'mention',
    templateData: { intro: 'Hi {{contact.name}}' },
    groupSlug: 'everyone',
  };

  const bare: number[] = [];
  const send: number[] = [];
  const dry: number[] = [];
  let queued = 0;
  let eligible = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // baseline: the same rows, one bare INSERT … SELECT, nothing checked or counted
    let t = performance.now();
    await sqlc.query(
      `INSERT INTO bench_messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
         template_version, category, priority, to_email, from_email, sending_domain, next_attempt_at,
         expires_at, created_at, updated_at, bulk_job_id, contact_id)
       SELECT 'msg_' || substr(c.id, 4), c.tenant_id, $2, $3, 'key_b', 'mention', 'v1', 'notification', 5,
              c.email, 'notifications@mailsvc.test', 'mailsvc.test', now(), now() + interval '1 day',
              now(), now(), 'job_b', c.id
         FROM contact_group_members gm JOIN contacts c ON c.id = gm.contact_id
        WHERE gm.tenant_id = $1 AND gm.group_slug = 'everyone'`,
      [tenant.id, project.id, environment.id],
    );
    bare.push(performance.now() - t);

    t = performance.now();
    const preview = await post('/v1/contacts/send/dry-run', body);
    dry.push(performance.now() - t);
    eligible = preview.eligible as number;

    t = performance.now();
    const job = await post('/v1/contacts/send', body);
    send.push(performance.now() - t);
    queued = job.queued as number;
    const { rows } = await sqlc.query('SELECT count(*)::int AS n FROM messages WHERE bulk_job_id = $1', [
      job.jobId,
    ]);
    if (rows[0].n !== queued || queued !== eligible) {
      throw new Error(
        `job ${job.jobId}: ${rows[0].n} messages committed, ${queued} queued, ${eligible} eligible`,
      );
    }
    // next round from the same state
    await sqlc.query('TRUNCATE bench_messages');
    await sqlc.query('DELETE FROM messages');
    await sqlc.query('VACUUM ANALYZE messages');
    await sqlc.query('VACUUM ANALYZE bench_messages');
  }
  await sqlc.end();
  await app.close();
  await runtime.close();

  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const b = median(bare);
  const sMs = median(send);
  const d = median(dry);
  console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${load}`);
  console.log(
    `${CONTACTS.toLocaleString('en')} contacts in one group (seeded in ${Math.round(seedMs)} ms), ${queued.toLocaleString('en')} eligible`,
  );
  console.log(
    `bare INSERT … SELECT (baseline)  ${Math.round(b)} ms   rounds ${bare.map(Math.round).join(' / ')}`,
  );
  console.log(
    `POST /v1/contacts/send           ${Math.round(sMs)} ms   rounds ${send.map(Math.round).join(' / ')}   ${(sMs / b).toFixed(2)}× the baseline (target ≤ 3×), ${Math.round(queued / (sMs / 1000)).toLocaleString('en')} messages/s`,
  );
  console.log(
    `POST /v1/contacts/send/dry-run   ${Math.round(d)} ms   rounds ${dry.map(Math.round).join(' / ')}   ${(d / b).toFixed(2)}× the baseline (target ≤ 1×)`,
  );
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
