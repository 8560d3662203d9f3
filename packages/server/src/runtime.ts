// Wiring: config + database + clock + logger → the Deps every use-case receives.
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
  opts: {
    command: string;
    log?: Logger;
    clock?: Clock;
    memory?: { loadDataDir?: Blob };
    skipMigrations?: boolean;
  },
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

export {
  readOrCreateSecretFile,
  readSecretFile,
  resolveAdminToken,
  writeSecretFile,
} from './secret-files.js';
