import { sql } from 'kysely';
import type { Db } from './schema.js';

/**
 * Runs `fn` in `db`'s transaction when `db` is one already (every admin command runs in one),
 * else in a transaction of its own; Kysely cannot nest them.
 */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/**
 * Holds a lock named `key` until `trx` ends (an advisory lock on the name's hash): transactions
 * that take the same name run their counts and writes one after another.
 */
export async function lockUntilCommit(trx: Db, key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}
