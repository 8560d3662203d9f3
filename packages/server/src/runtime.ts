// Wiring: config + database + clock + logger → the Deps every use-case receives.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { KeyLookupCache } from './domain/auth/authenticate.js';
import type { Deps } from './domain/deps.js';
import { createLogger } from './logger.js';

export interface Runtime {
  config: Config;
  database: DatabaseHandle;
  deps: Deps;
  close(): Promise<void>;
}

export async function openRuntime(
  config: Config,
  opts: { command: string; log?: Logger; clock?: Clock; memory?: { loadDataDir?: Blob }; skipMigrations?: boolean },
): Promise<Runtime> {
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    poolSize: config.MAILSVC_DB_POOL_SIZE,
    command: opts.command,
    ...(opts.memory && { memory: opts.memory }),
  });
  try {
    if (!opts.skipMigrations) await migrate(database.pool);
  } catch (err) {
    await database.close();
    throw err;
  }
  const deps: Deps = {
    db: database.db,
    clock: opts.clock ?? systemClock,
    config,
    log: opts.log ?? createLogger(config.LOG_LEVEL),
    keyCache: new KeyLookupCache(config.MAILSVC_AUTH_CACHE_TTL_MS),
  };
  return { config, database, deps, close: () => database.close() };
}

/** A secret kept in the data directory (mode 0600), created on first use. */
export function readOrCreateSecretFile(dataDir: string, name: string, create: () => string): string {
  const file = path.join(dataDir, name);
  try {
    const value = fs.readFileSync(file, 'utf8').trim();
    if (value) return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const value = create();
  fs.writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

export function writeSecretFile(dataDir: string, name: string, value: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, name), `${value}\n`, { mode: 0o600 });
  fs.chmodSync(path.join(dataDir, name), 0o600);
}

export function readSecretFile(dataDir: string, name: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, name), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The admin token: MAILSVC_ADMIN_TOKEN, else (embedded mode only) a random one in the data directory. */
export function resolveAdminToken(config: Config): string | undefined {
  if (config.MAILSVC_ADMIN_TOKEN) return config.MAILSVC_ADMIN_TOKEN;
  if (config.DATABASE_URL) return undefined;
  return readOrCreateSecretFile(config.dataDir, 'admin-token', () => crypto.randomBytes(32).toString('base64url'));
}
