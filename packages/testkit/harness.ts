// Integration harness: the real app on a real database per test file (PGlite by default,
// PostgreSQL when TEST_DATABASE_URL is set), with a movable clock and captured logs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '@mailsvc/server/src/api/app.js';
import { fixedClock } from '@mailsvc/server/src/clock.js';
import { loadConfig } from '@mailsvc/server/src/config.js';
import { adminCommands } from '@mailsvc/server/src/domain/admin/index.js';
import { createLogger } from '@mailsvc/server/src/logger.js';
import { newSendBatchers, openRuntime, type Runtime } from '@mailsvc/server/src/runtime.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse as InjectResponse } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';

export const backend = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface Harness {
  runtime: Runtime;
  app: FastifyInstance;
  clock: ReturnType<typeof fixedClock>;
  logs: string[];
  dataDir: string;
  request(opts: InjectOptions): Promise<InjectResponse>;
  // biome-ignore lint/suspicious/noExplicitAny: admin results are read loosely in tests
  admin<T = Record<string, any>>(name: string, input: Record<string, unknown>): Promise<T>;
  /** A second "replica": its own app, key cache and send batchers on the same database. */
  replica(): Promise<FastifyInstance>;
  close(): Promise<void>;
}

async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(process.env.TEST_DATABASE_URL!);
  const name = `mailsvc_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function createHarness(
  opts: {
    env?: Record<string, string>;
    /** PostgreSQL: the address the app connects to for the test database (a proxy, say). */
    connectVia?: (databaseUrl: string) => string;
  } = {},
): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-h-'));
  const database = backend === 'postgres' ? await createDatabase() : undefined;
  const config = loadConfig({
    MAILSVC_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...(database && { DATABASE_URL: opts.connectVia ? opts.connectVia(database.url) : database.url }),
    ...opts.env,
  });
  const logs: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    }),
  );
  const clock = fixedClock('2026-11-22T10:15:30.123Z');
  const dump = inject('pgliteDump');
  const runtime = await openRuntime(config, {
    command: 'test',
    log,
    clock,
    // The dump was migrated by global-setup.ts in this run, with the rule functions of this
    // checkout: nothing to apply again.
    ...(backend === 'pglite' && {
      memory: { loadDataDir: new Blob([fs.readFileSync(dump)]) },
      skipMigrations: true,
    }),
  });
  // A route answering an error code its contract does not declare fails the test file.
  const undeclared: string[] = [];
  const onUndeclaredError = (route: string, code: string) => undeclared.push(`${route} answered ${code}`);
  const app = await buildApp(runtime.deps, { adminToken: ADMIN_TOKEN, onUndeclaredError });
  const replicas: FastifyInstance[] = [];
  return {
    runtime,
    app,
    clock,
    logs,
    dataDir,
    request: (o) => app.inject(o),
    admin: async (name, input) => {
      const command = adminCommands[name];
      if (!command) throw new Error(`no admin command ${name}`);
      return (await command.run(runtime.deps, input as never, 'test')) as never;
    },
    async replica() {
      const { KeyLookupCache } = await import('@mailsvc/server/src/domain/auth/authenticate.js');
      const r = await buildApp(
        {
          ...runtime.deps,
          keyCache: new KeyLookupCache(config.MAILSVC_AUTH_CACHE_TTL_MS),
          send: newSendBatchers(runtime.database),
        },
        { onUndeclaredError },
      );
      replicas.push(r);
      return r;
    },
    async close() {
      for (const r of replicas) await r.close();
      await app.close();
      await runtime.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (undeclared.length > 0) {
        throw new Error(
          `routes answered error codes their contract does not declare:\n${undeclared.join('\n')}`,
        );
      }
    },
  };
}

export interface Scope {
  planId: string;
  tenantId: string;
  projectId: string;
  environmentId: string;
  keyId: string;
  apiKey: string;
}

let planCounter = 0;

/** A fresh plan, tenant, project, environment and API key. */
export async function seedScope(
  h: Harness,
  opts: { monthlyLimit?: number; overageAllowed?: boolean; trialEndsAt?: string } = {},
): Promise<Scope> {
  const planId = `plan-${process.pid}-${++planCounter}`;
  await h.admin('plans.create', {
    id: planId,
    monthlyLimit: opts.monthlyLimit ?? 1000,
    overageAllowed: opts.overageAllowed ?? false,
  });
  const { tenant } = await h.admin('tenants.create', {
    name: 'Acme',
    plan: planId,
    ...(opts.trialEndsAt && { trialEndsAt: opts.trialEndsAt }),
  });
  const { project } = await h.admin('projects.create', { tenant: tenant.id, name: 'Acme App' });
  const { environment } = await h.admin('environments.create', { project: project.id, name: 'production' });
  const { key, apiKey } = await h.admin('keys.create', { environment: environment.id });
  return {
    planId,
    tenantId: tenant.id,
    projectId: project.id,
    environmentId: environment.id,
    keyId: key.id,
    apiKey,
  };
}

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** POST with the key as a bearer token and a JSON body (a string is sent as it is, for malformed bodies). */
export const postJson = (h: Harness, apiKey: string, url: string, body: unknown) =>
  h.request({
    method: 'POST',
    url,
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The recipients row of an address in an environment, as stored; undefined when there is none. */
export function recipientRow(h: Harness, environmentId: string, email: string) {
  return h.runtime.deps.db
    .selectFrom('recipients')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('email', '=', email)
    .executeTakeFirst();
}
