// Wiring: config + database + clock + logger → the Deps every use-case receives.
import { createHmac } from 'node:crypto';
import { createRateLimitStore, memoryRateLimitStore } from '@mailsvc/contract/rate-limit';
import type { Logger } from 'pino';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { Batcher } from './db/batcher.js';
import { type DatabaseHandle, openDatabase } from './db/connection.js';
import { describeConnectFailure, isStatementError } from './db/errors.js';
import { migrate } from './db/migrate.js';
import { loadOrCreateServiceSecret } from './db/repositories/secrets.js';
import { acceptMessages } from './db/repositories/send.js';
import { inProcessSignal, postgresSignal } from './delivery/queue-signal.js';
import { KeyLookupCache } from './domain/auth/authenticate.js';
import { KeyUsage } from './domain/auth/key-usage.js';
import { AuthFailureLimiter } from './domain/auth/rate-limit.js';
import type { Deps, ServiceKeys } from './domain/deps.js';
import { defaultSnsClient } from './domain/feedback/ingest-ses-event.js';
import { createLogger } from './logger.js';
import { createMetrics, type Metrics, registerDatabaseGauges } from './metrics.js';
import { StartupError } from './startup-error.js';

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
    /** The API: rate limits counted in Redis when MAILSVC_REDIS_URL is set (else per process). */
    servesHttp?: boolean;
    /** Called before a new embedded database is made (a first start takes tens of seconds). */
    onCreateEmbedded?: (dir: string) => void;
  },
): Promise<Runtime> {
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    poolSize: config.MAILSVC_DB_POOL_SIZE,
    pgliteSharedBuffersMb: config.MAILSVC_PGLITE_SHARED_BUFFERS_MB,
    command: opts.command,
    ...(opts.memory && { memory: opts.memory }),
    ...(opts.onCreateEmbedded && { onCreateEmbedded: opts.onCreateEmbedded }),
  });
  try {
    if (!opts.skipMigrations) await migrate(database.pool);
  } catch (err) {
    await database.close().catch(() => {});
    const failure = describeConnectFailure(database.location, err);
    throw failure ? new StartupError(failure) : err;
  }
  let keys: ServiceKeys;
  try {
    keys = await deriveKeys(config, database.db);
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
  const queue = config.DATABASE_URL ? postgresSignal(database.pool, config.DATABASE_URL) : inProcessSignal();
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  // Only the processes that serve HTTP count requests; the others never open a Redis client.
  const rateLimits = opts.servesHttp
    ? createRateLimitStore(config.MAILSVC_REDIS_URL, log)
    : memoryRateLimitStore();
  const clock = opts.clock ?? systemClock;
  const metrics = createMetrics();
  registerDatabaseGauges(metrics, database.db, database.pool, () => clock.now());
  const deps: Deps = {
    db: database.db,
    queue,
    keys,
    clock,
    config,
    log,
    keyCache: new KeyLookupCache(config.MAILSVC_AUTH_CACHE_TTL_MS),
    keyUsage: new KeyUsage(database.db),
    send: newSendBatchers(database, metrics),
    rateLimits,
    authFailures: new AuthFailureLimiter(rateLimits, config.MAILSVC_AUTH_FAILURE_LIMIT_PER_MINUTE),
    sns: defaultSnsClient(),
    metrics,
  };
  return {
    config,
    database,
    deps,
    async close() {
      await deps.keyUsage.flushed();
      await queue.close();
      await rateLimits.close();
      await database.close();
    },
  };
}

/**
 * POST /v1/send's batcher: the accept (with the checks that need the database and their refusal
 * codes, one round trip per send, accepted or refused). One batch at a time per process: fewer batches in flight means bigger batches, so fewer
 * statements, counter-row updates and commit flushes per send. Since the accept also runs the
 * checks, one accept batch in flight measured best on PostgreSQL (bench/accept.ts, 2 rounds each:
 * 1.15 and 1.02 of the baseline without and with keys against 1.00 and 0.88 with two in flight,
 * and p99 at 1,000/s offered 1.5× the baseline's against 1.8×). The PGlite shim has one connection
 * anyway. A second API process gets its own batchers: its batches are separate transactions, as
 * they would be in another process.
 */
export function newSendBatchers(database: Pick<DatabaseHandle, 'db'>, metrics?: Metrics): Deps['send'] {
  // A batch the database refused is retried item by item (one send it cannot store must not fail
  // the sends batched with it); not when it is unreachable, nor for an error of our own code after
  // the statement, when the batch may have committed.
  const isolate = isStatementError;
  return {
    accepts: new Batcher((items) => acceptMessages(database.db, items), {
      maxConcurrent: 1,
      maxBatch: 100,
      ...(metrics && { onBatch: (size: number) => metrics.batchSize.observe({ kind: 'accept' }, size) }),
      isolate,
    }),
  };
}

/** From MAILSVC_SECRET when set, else from a random secret kept in the database. */
async function deriveKeys(config: Config, db: Deps['db']): Promise<ServiceKeys> {
  const root = config.MAILSVC_SECRET
    ? Buffer.from(config.MAILSVC_SECRET, 'utf8')
    : await loadOrCreateServiceSecret(db, 'root');
  const derive = (purpose: string) => createHmac('sha256', root).update(`mailsvc:${purpose}`).digest();
  return {
    unsubscribe: derive('unsubscribe-token'),
    verp: derive('verp-address'),
    listCursor: derive('list-cursor'),
  };
}

export {
  readOrCreateSecretFile,
  readSecretFile,
  resolveAdminToken,
  writeSecretFile,
} from './secret-files.js';
