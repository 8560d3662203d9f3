// What the contacts benchmarks share: a temporary PostgreSQL database (migrated, dropped at the
// end) with a tenant, project, environment and key, and a generated contact base.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../packages/server/src/config.js';
import type { Db } from '../packages/server/src/db/schema.js';
import { adminCommands } from '../packages/server/src/domain/admin/index.js';
import { createLogger } from '../packages/server/src/logger.js';
import { openRuntime, type Runtime } from '../packages/server/src/runtime.js';

export const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  url: string;
  dataDir: string;
  runtime: Runtime;
  db: Db;
  // biome-ignore lint/suspicious/noExplicitAny: admin results are read loosely here
  admin(name: string, input: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export async function openBenchDatabase(label: string): Promise<BenchDatabase> {
  const name = `mailsvc_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-bench-'));
  const config = loadConfig({ DATABASE_URL: url.toString(), MAILSVC_DATA_DIR: dataDir });
  const log = createLogger('warn', pino.destination({ dest: '/dev/null', sync: true }));
  const runtime = await openRuntime(config, { command: 'bench', log });
  return {
    url: url.toString(),
    dataDir,
    runtime,
    db: runtime.deps.db,
    admin: (command, input) => adminCommands[command]!.run(runtime.deps, input as never, 'bench') as never,
    async close() {
      await runtime.close();
      const c = new pg.Client({ connectionString: BASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchScope {
  tenantId: string;
  projectId: string;
  environmentId: string;
}

export async function seedBenchScope(bench: BenchDatabase, name = 'Bench'): Promise<BenchScope> {
  const planId = `bench-${name.toLowerCase()}`;
  await bench.admin('plans.create', { id: planId, monthlyLimit: 100_000_000, overageAllowed: false });
  const { tenant } = await bench.admin('tenants.create', { name, plan: planId });
  const { project } = await bench.admin('projects.create', { tenant: tenant.id, name: `${name} App` });
  const { environment } = await bench.admin('environments.create', {
    project: project.id,
    name: 'production',
  });
  return { tenantId: tenant.id, projectId: project.id, environmentId: environment.id };
}

/** Time-ordered ids in the ct_ shape: 26 Crockford characters (hex digits are among them). */
const idSql = (index: string) => sql.raw(`'ct_01' || lpad(upper(to_hex(${index})), 24, '0')`);

/**
 * `contacts` contacts in a tenant of their own (and `neighbour` in another tenant, interleaved in
 * id order): user<i>@example<i % 50>.com, "User <i> Person"; groups newsletter (even i), beta
 * (i % 100 = 0), vip (i % 1000 = 0); in the environment: unsubscribed (i % 50 = 1), complained
 * (i % 200 = 3), cooldown (i % 100 = 5), suppressed (i % 500 = 7); one message to 30% (i % 10 < 3),
 * a second to half of those, and a message in the last day to 1% (i % 100 = 1).
 */
export async function seedBenchContacts(
  bench: BenchDatabase,
  opts: { contacts: number; neighbour: number },
): Promise<BenchScope & { idAt(i: number): string; recentCutoff: Date }> {
  const scope = await seedBenchScope(bench, 'Bench');
  const other = await seedBenchScope(bench, 'Neighbour');
  const db = bench.db;
  const now = new Date();
  const day = new Date(now.getTime() - 86_400_000);
  const old = new Date(now.getTime() - 30 * 86_400_000);
  // Interleaved ids (prefix 01 for both tenants, index by step 2) so the tenants share the id range.
  await sql`
    INSERT INTO contacts (id, tenant_id, email, name, custom_fields, created_at, updated_at)
    SELECT ${idSql('i * 2')}, ${scope.tenantId},
           'user' || i || '@example' || (i % 50) || '.com', 'User ' || i || ' Person',
           jsonb_build_object('plan', CASE WHEN i % 3 = 0 THEN 'pro' ELSE 'free' END, 'seats', i % 20),
           ${old}, ${old}
    FROM generate_series(1, ${opts.contacts}) AS g (i)`.execute(db);
  await sql`
    INSERT INTO contacts (id, tenant_id, email, name, custom_fields, created_at, updated_at)
    SELECT ${idSql('i * 2 + 1')}, ${other.tenantId},
           'user' || i || '@example' || (i % 50) || '.com', 'Neighbour ' || i, '{}', ${old}, ${old}
    FROM generate_series(1, ${opts.neighbour}) AS g (i)`.execute(db);
  await sql`
    INSERT INTO contact_groups (tenant_id, slug, name, created_at, updated_at)
    VALUES (${scope.tenantId}, 'newsletter', 'Newsletter', ${old}, ${old}),
           (${scope.tenantId}, 'beta', 'Beta', ${old}, ${old}),
           (${scope.tenantId}, 'vip', 'VIP', ${old}, ${old}),
           (${other.tenantId}, 'newsletter', 'Newsletter', ${old}, ${old})`.execute(db);
  await sql`
    INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
    SELECT ${scope.tenantId}, g.slug, ${idSql('i * 2')}, ${old}
    FROM generate_series(1, ${opts.contacts}) AS s (i)
    JOIN (VALUES ('newsletter', 2), ('beta', 100), ('vip', 1000)) AS g (slug, every) ON i % g.every = 0`.execute(
    db,
  );
  await sql`
    INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
    SELECT ${other.tenantId}, 'newsletter', ${idSql('i * 2 + 1')}, ${old}
    FROM generate_series(1, ${opts.neighbour}) AS s (i) WHERE i % 2 = 0`.execute(db);
  const future = new Date(now.getTime() + 7 * 86_400_000);
  await sql`
    INSERT INTO recipients (environment_id, tenant_id, email, unsubscribed_at, complained_at, complaint_count,
                            cooldown_until, suppressed_until, hard_bounce_count, created_at, updated_at)
    SELECT ${scope.environmentId}, ${scope.tenantId}, 'user' || i || '@example' || (i % 50) || '.com',
           CASE WHEN i % 50 = 1 THEN ${old}::timestamptz END,
           CASE WHEN i % 200 = 3 THEN ${old}::timestamptz END, CASE WHEN i % 200 = 3 THEN 1 ELSE 0 END,
           CASE WHEN i % 100 = 5 THEN ${future}::timestamptz END,
           CASE WHEN i % 500 = 7 THEN ${future}::timestamptz END,
           CASE WHEN i % 100 = 5 OR i % 500 = 7 THEN 1 ELSE 0 END, ${old}, ${old}
    FROM generate_series(1, ${opts.contacts}) AS g (i)
    WHERE i % 50 = 1 OR i % 200 = 3 OR i % 100 = 5 OR i % 500 = 7`.execute(db);
  await sql`
    INSERT INTO messages (id, tenant_id, project_id, environment_id, template_id, template_version, category,
                          priority, to_email, from_email, sending_domain, status, next_attempt_at, expires_at,
                          created_at, updated_at, sent_at)
    SELECT 'msg_' || lpad(upper(to_hex(i * 4 + n)), 26, '0'), ${scope.tenantId}, ${scope.projectId},
           ${scope.environmentId}, 'welcome', 'v1', 'transactional', 1,
           'user' || i || '@example' || (i % 50) || '.com', 'notifications@bench.example', 'bench.example',
           'sent', t.at, t.at, t.at, t.at, t.at
    FROM generate_series(1, ${opts.contacts}) AS g (i)
    CROSS JOIN generate_series(0, 1) AS m (n)
    CROSS JOIN LATERAL (SELECT CASE WHEN i % 100 = 1 AND n = 0 THEN ${now}::timestamptz
                                    ELSE ${old}::timestamptz + make_interval(secs => i + n) END AS at) t
    WHERE i % 10 < 3 AND (n = 0 OR i % 2 = 0)`.execute(db);
  await sql`ANALYZE`.execute(db);
  return {
    ...scope,
    idAt: (n) => `ct_01${(n * 2).toString(16).toUpperCase().padStart(24, '0')}`,
    recentCutoff: day,
  };
}
