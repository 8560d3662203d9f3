import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import { listMigrations, migrate } from '../src/db/migrate.js';
import { backend, createHarness } from './harness.js';

describe('migrations', () => {
  it('are numbered, and applying them again changes nothing', async () => {
    const h = await createHarness();
    try {
      const files = listMigrations();
      expect(files.map((m) => m.version)).toEqual(files.map((_, i) => i + 1));
      expect(await migrate(h.runtime.database.pool)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it.runIf(backend === 'postgres')(
    'are applied once when two deployers start together (advisory lock)',
    async () => {
      const h = await createHarness();
      try {
        const pool = h.runtime.database.pool;
        await pool.query('DROP TABLE schema_migrations');
        // The schema exists, so a second application of 0001 would fail loudly; with the
        // lock one deployer records it and the other sees it recorded. Recreate the empty state:
        await pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
        const results = await Promise.all([migrate(pool), migrate(pool), migrate(pool)]);
        expect(results.flat().filter((n) => n.startsWith('0001'))).toHaveLength(1);
      } finally {
        await h.close();
      }
    },
  );

  it.runIf(backend === 'postgres')(
    'close their pool when done, so `mailsvc migrate` exits at once (Kysely never ran a query)',
    async () => {
      const h = await createHarness();
      const database = await openDatabase({
        databaseUrl: h.runtime.config.DATABASE_URL,
        dataDir: h.dataDir,
        command: 'migrate',
      });
      try {
        await migrate(database.pool);
        expect(database.pool.totalCount).toBeGreaterThan(0);
      } finally {
        await database.close();
        await h.close();
      }
      expect(database.pool.ended).toBe(true);
      expect(database.pool.totalCount).toBe(0);
    },
  );
});
