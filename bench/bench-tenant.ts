// The setup the delivery benches share: a temporary PostgreSQL database, the runtime on it, and a
// tenant with an unlimited plan, one environment, its API key and a verified sending domain (so
// messages are DKIM-signed), plus the API app. `close()` undoes all of it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../packages/server/src/api/app.js';
import { loadConfig } from '../packages/server/src/config.js';
import { adminCommands } from '../packages/server/src/domain/admin/index.js';
import { createLogger } from '../packages/server/src/logger.js';
import { openRuntime, type Runtime } from '../packages/server/src/runtime.js';

export interface BenchTenant {
  runtime: Runtime;
  app: FastifyInstance;
  apiKey: string;
  /** The verified sending domain. */
  domain: string;
  /** The server's version, for the report. */
  pgVersion: string;
  close(): Promise<void>;
}

export async function openBenchTenant(baseUrl: string, name: string): Promise<BenchTenant> {
  const dbName = `mailsvc_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(baseUrl);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailsvc-${name}-`));
  const dropAll = async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  };
  try {
    const config = loadConfig({ DATABASE_URL: dbUrl.toString(), MAILSVC_DATA_DIR: dataDir });
    const log = createLogger('info', pino.destination({ dest: '/dev/null', sync: false }));
    const runtime = await openRuntime(config, { command: 'bench', log });
    const run = (command: string, input: Record<string, unknown>) =>
      // biome-ignore lint/suspicious/noExplicitAny: admin results are read loosely here
      adminCommands[command]!.run(runtime.deps, input as never, 'bench') as Promise<any>;
    await run('plans.create', {
      id: 'bench',
      monthlyLimit: 100_000_000,
      overageAllowed: false,
      rateLimitPerSecond: 0,
    });
    const { tenant } = await run('tenants.create', { name: 'Bench', plan: 'bench' });
    const { project } = await run('projects.create', { tenant: tenant.id, name: 'Bench App' });
    const { environment } = await run('environments.create', { project: project.id, name: 'production' });
    const { apiKey } = await run('keys.create', { environment: environment.id });
    const domain = 'mail.bench.test';
    await run('domains.add', { domain, project: project.id });
    await run('domains.set-status', { domain, status: 'verified' });
    const app = await buildApp(runtime.deps);
    const pgVersion = (await admin.query('SHOW server_version')).rows[0].server_version as string;
    return {
      runtime,
      app,
      apiKey,
      domain,
      pgVersion,
      async close() {
        await app.close();
        await runtime.close();
        await dropAll();
      },
    };
  } catch (err) {
    await dropAll();
    throw err;
  }
}
