// Numbered .sql files applied in order, each in its own transaction, under an advisory lock
// so that two deployers starting at once cannot race.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/**
 * SQL functions that hold a rule (the quota, eligibility): applied after the numbered migrations
 * whenever their files changed (or a migration ran), so a rule changes by editing its one file.
 * Unchanged files are not applied again: every process start migrates, and re-creating a function
 * other workers are calling (claim_messages is dropped and created) would throw away their cached
 * plans and race their calls, for nothing.
 */
const FUNCTIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'functions');
// Any constant works; this one spells "mailsvc" on a phone keypad.
const MIGRATION_LOCK_KEY = 6245782;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listFunctionFiles(dir = FUNCTIONS_DIR): { name: string; sql: string }[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ name: f.slice(0, -4), sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 4)),
      name: f.slice(5, -4),
      sql: fs.readFileSync(path.join(dir, f), 'utf8'),
    }));
}

/**
 * The functions of the schema as they are now: each one's oid, name and body. Changes when one is
 * dropped, created again or replaced with another body.
 */
async function functionCatalog(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<{ catalog: string }>(
    `SELECT md5(coalesce(string_agg(p.oid::text || ':' || p.proname || ':' || md5(p.prosrc), ',' ORDER BY p.oid), ''))
       AS catalog
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema()`,
  );
  return rows[0]!.catalog;
}

/** Applies pending migrations; returns the names of those applied. */
export async function migrate(pool: pg.Pool, migrations = listMigrations()): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_functions (
      id         boolean PRIMARY KEY DEFAULT true CHECK (id),
      sha256     text NOT NULL,
      catalog    text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        // With the migration, not after it: a process that dies before the functions are applied
        // leaves them to be applied by the next start.
        await client.query('DELETE FROM schema_functions');
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.version}_${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(`${String(m.version).padStart(4, '0')}_${m.name}`);
    }
    // The rule functions, in one transaction (a failing file leaves the previous versions), unless
    // the files are those applied last and the functions in the database are still the ones that
    // left (not dropped by a migration, nor replaced by an older release's start).
    const functions = listFunctionFiles();
    const digest = createHash('sha256');
    for (const f of functions) digest.update(`${f.name}\0${f.sql}\0`);
    const sha256 = digest.digest('hex');
    const last = await client.query<{ sha256: string; catalog: string }>(
      'SELECT sha256, catalog FROM schema_functions',
    );
    if (last.rows[0]?.sha256 === sha256 && last.rows[0].catalog === (await functionCatalog(client)))
      return applied;
    await client.query('BEGIN');
    try {
      for (const f of functions) await client.query(f.sql);
      await client.query(
        `INSERT INTO schema_functions (sha256, catalog) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET sha256 = excluded.sha256, catalog = excluded.catalog, applied_at = now()`,
        [sha256, await functionCatalog(client)],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`Applying db/functions failed: ${(err as Error).message}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}
