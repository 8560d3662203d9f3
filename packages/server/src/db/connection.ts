// One pg.Pool-shaped interface for all code: a real pg Pool with DATABASE_URL, or embedded
// PGlite (through its node-postgres shim) in the data directory.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { acquireDataDirLock, type DataDirLock } from './lock.js';
import type { Db } from './schema.js';

/**
 * The extensions the migrations create (0008: pg_trgm, the contacts search's trigram indexes).
 * PGlite loads them when the database opens, so every PGlite (data directory, memory, the test
 * dump) is created with them.
 */
export const PGLITE_EXTENSIONS = { pg_trgm };

/**
 * PostgreSQL settings of the embedded database (`mailsvc start`), added to PGlite's own start
 * parameters. Its defaults (shared_buffers 160 MB, wal_buffers 5 MB) live in the WebAssembly
 * memory of the service's process; a developer's database is small, and 16 MB of buffers holds
 * its working set (bench/memory.ts: resident memory and accept speed with and without them).
 */
export function pgliteSettings(sharedBuffersMb = 16): string[] {
  return [`shared_buffers=${sharedBuffersMb}MB`, 'wal_buffers=1MB'];
}

const INITDB_SCRIPT = fileURLToPath(new URL('./pglite-initdb.mjs', import.meta.url));

/**
 * A new data directory's cluster is made by a child process (pglite-initdb.mjs): initdb grows
 * WebAssembly memory to ~700 MB that the process would keep for its lifetime. The child builds it
 * in `pgdata.init-<pid>`, renamed to `pgdata` only once it exited cleanly, so a first start that is
 * interrupted leaves no half-made database behind (its staging directory is removed at the next
 * start, under the data directory's lock).
 */
async function initClusterIfNew(dir: string, onCreate?: (dir: string) => void): Promise<void> {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return;
  onCreate?.(dir);
  const parent = path.dirname(dir);
  const stagingPrefix = `${path.basename(dir)}.init-`;
  for (const name of fs.readdirSync(parent)) {
    if (name.startsWith(stagingPrefix)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  if (fs.existsSync(dir)) {
    if (fs.readdirSync(dir).length > 0) {
      throw new Error(
        `${dir} holds files but no database (no PG_VERSION): it was not made by mailsvc, or an older version stopped while making it. Move it away and start again (a new database is made).`,
      );
    }
    fs.rmdirSync(dir);
  }
  const staging = path.join(parent, `${stagingPrefix}${process.pid}`);
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    await promisify(execFile)(process.execPath, [INITDB_SCRIPT, staging], { timeout: 300_000 });
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`creating the embedded database in ${dir} failed${stderr ? `: ${stderr}` : ''}`, {
      cause: err,
    });
  }
  fs.renameSync(staging, dir);
  const fd = fs.openSync(parent, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// int8 (counts, sums) as numbers: every count here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DatabaseHandle {
  kind: 'pglite' | 'postgres';
  pool: pg.Pool;
  db: Db;
  /** Where the data lives, for start-up messages (no credentials). */
  location: string;
  lock?: DataDirLock;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** The command holding the embedded database, written in the lock file. */
  command: string;
  /** The embedded database's shared_buffers (MAILSVC_PGLITE_SHARED_BUFFERS_MB). */
  pgliteSharedBuffersMb?: number;
  /** Tests: an in-memory PGlite, optionally loaded from a dump, with no lock file. */
  memory?: { loadDataDir?: Blob };
  /** Called before a new embedded database is made (the first start: tens of seconds). */
  onCreateEmbedded?: (dir: string) => void;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // A request waits at most this long for a connection while the server is unreachable,
      // then answers 503 instead of hanging.
      connectionTimeoutMillis: 5000,
    });
    // A dropped connection (server restart, network) emits 'error' on its client: the pool
    // listens on idle clients only, and an 'error' event nobody listens to ends the process. The
    // query in flight still fails (503 in the API, retried by the worker) and the pool discards
    // the broken client when it is released.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) }) as Db;
    const url = new URL(opts.databaseUrl);
    return {
      kind: 'postgres',
      pool,
      db,
      location: `postgres://${url.host}${url.pathname}`,
      close: () => closePool(db, pool),
    };
  }
  let lock: DataDirLock | undefined;
  let pglite: PGlite;
  let location: string;
  if (opts.memory) {
    pglite = await PGlite.create({
      extensions: PGLITE_EXTENSIONS,
      ...(opts.memory.loadDataDir && { loadDataDir: opts.memory.loadDataDir }),
    });
    location = 'in-memory PGlite';
  } else {
    lock = acquireDataDirLock(opts.dataDir, opts.command);
    const dir = path.join(opts.dataDir, 'pgdata');
    try {
      await initClusterIfNew(dir, opts.onCreateEmbedded);
      pglite = await PGlite.create(dir, {
        extensions: PGLITE_EXTENSIONS,
        startParams: [
          ...PGlite.defaultStartParams,
          ...pgliteSettings(opts.pgliteSharedBuffersMb).flatMap((s) => ['-c', s]),
        ],
      });
      restrictToOwner(opts.dataDir);
    } catch (err) {
      lock.release();
      throw err;
    }
    location = `embedded PGlite in ${dir}`;
  }
  const pool = new pg.Pool(createPgConfig(pglite));
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) }) as Db;
  return {
    kind: 'pglite',
    pool,
    db,
    location,
    lock,
    async close() {
      await closePool(db, pool);
      await pglite.close();
      lock?.release();
    },
  };
}

/**
 * The data directory holds every tenant's mail, keys and secrets: directories 0700, files 0600,
 * including a directory made by an earlier version or by hand. PGlite creates its files 0666
 * (less the umask); files it creates later are unreachable to others through the 0700 directories.
 */
export function restrictToOwner(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) restrictToOwner(full);
    else if (entry.isFile()) fs.chmodSync(full, 0o600);
  }
}

/**
 * Kysely ends the pool only if it ever ran a query itself; migrations use the pool directly, so
 * end it here too (an idle client kept `mailsvc migrate` alive for 10 s after it finished).
 */
async function closePool(db: Db, pool: pg.Pool): Promise<void> {
  await db.destroy();
  if (!pool.ended) await pool.end();
}
