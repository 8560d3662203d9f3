import type { Db } from './schema.js';

/**
 * Runs `fn` in `db`'s transaction when `db` is one already (every admin command runs in one),
 * else in a transaction of its own; Kysely cannot nest them.
 */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
