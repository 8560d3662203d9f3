import { backend, createHarness, type Harness, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import { listMigrations, migrate } from '../src/db/migrate.js';
import { newId } from '../src/ids.js';

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

  it('the rule functions are applied again only when their files changed, a migration ran, or the database’s differ from what was applied (a worker starting leaves the others’ functions alone)', async () => {
    const h = await createHarness();
    try {
      const pool = h.runtime.database.pool;
      const oid = async () =>
        (await pool.query("SELECT 'claim_messages'::regproc::oid AS oid")).rows[0].oid as number;
      const before = await oid();
      await migrate(pool);
      expect(await oid()).toBe(before);
      // Files that differ from what was applied last (as after an upgrade) are applied again.
      await pool.query("UPDATE schema_functions SET sha256 = 'an older version'");
      await migrate(pool);
      const reapplied = await oid();
      expect(reapplied).not.toBe(before);
      // A migration that ran applies them again too (it may have dropped one with its table).
      const next = listMigrations().length + 1;
      await migrate(pool, [...listMigrations(), { version: next, name: 'noop', sql: 'SELECT 1' }]);
      const afterMigration = await oid();
      expect(afterMigration).not.toBe(reapplied);
      await pool.query('DELETE FROM schema_migrations WHERE version = $1', [next]);
      // A function dropped since (a migration whose process died before the functions were
      // applied) is created again by the next start.
      await pool.query('DROP FUNCTION claim_messages(timestamptz, integer, timestamptz, text)');
      await migrate(pool);
      expect(await oid()).not.toBe(afterMigration);
      // A function an older release replaced at its start (a rollback, an old process restarting
      // during a deploy) gets this release's body back.
      const body = async () =>
        (await pool.query("SELECT prosrc FROM pg_proc WHERE proname = 'reserve_usage'")).rows[0]
          .prosrc as string;
      const current = await body();
      const { rows } = await pool.query("SELECT pg_get_functiondef('reserve_usage'::regproc) AS def");
      await pool.query((rows[0].def as string).replace(current, `${current}\n-- an older release`));
      expect(await body()).not.toBe(current);
      await migrate(pool);
      expect(await body()).toBe(current);
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

// The migrations that change stored data, each run again on a database it has already migrated
// (they are written to be re-run), over rows made as the release before left them. One harness.
describe('data migrations', () => {
  let data: Harness;
  beforeAll(async () => {
    data = await createHarness();
  });
  afterAll(() => data.close());

  it('0010 gives a stored message error the code of the one list: bounced → hard_bounce, failed → rejected, job_data_missing → bulk_send_canceled', async () => {
    const pool = data.runtime.database.pool;
    const migration = listMigrations().find((m) => m.version === 10)!;
    const codes = ['bounced', 'failed', 'job_data_missing', 'expired', 'hard_bounce'];
    const ids = codes.map(() => newId('msg'));
    for (const [i, code] of codes.entries())
      await pool.query(
        `INSERT INTO messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
           template_version, category, priority, to_email, from_email, sending_domain, next_attempt_at,
           expires_at, created_at, updated_at, status, last_error)
         VALUES ($1, 'ten_x', 'prj_x', 'env_x', 'key_x', 'login-code', 'v1', 'security', 1, 'a@example.com',
           'n@mailsvc.test', 'mailsvc.test', now(), now(), now(), now(), 'failed', $2)`,
        [ids[i], JSON.stringify({ code, message: 'm' })],
      );
    await pool.query(migration.sql);
    const { rows } = await pool.query(
      "SELECT id, last_error->>'code' AS code, last_error->>'message' AS message FROM messages WHERE id = ANY($1)",
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, [r.code, r.message]]));
    expect(ids.map((id) => byId.get(id))).toEqual(
      ['hard_bounce', 'rejected', 'bulk_send_canceled', 'expired', 'hard_bounce'].map((c) => [c, 'm']),
    );
  });

  it('0016 makes an operator’s suppression of before a manual one, and leaves a bounce’s own suppression a bounce’s', async () => {
    const pool = data.runtime.database.pool;
    const scope = await seedScope(data);
    const migration = listMigrations().find((m) => m.version === 16)!;
    const day = 86_400_000;
    const t = (days: number) => new Date(Date.parse('2026-11-22T10:00:00Z') + days * day);
    const rows: [string, Date | null, Date][] = [
      // never bounced: the operator's
      ['operator@example.com', null, t(30)],
      // bounced once long ago, suppressed for a year since: longer than a bounce makes, the operator's
      ['long@example.com', t(-400), t(365)],
      // suppressed 30 days after its last bounce: the bounce policy's own
      ['bounced@example.com', t(-1), t(29)],
    ];
    for (const [email, bounce, until] of rows)
      await pool.query(
        `INSERT INTO recipients (environment_id, tenant_id, email, last_hard_bounce_at, suppressed_until,
           hard_bounce_count, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
        [scope.environmentId, scope.tenantId, email, bounce, until, bounce ? 3 : 0, t(-2)],
      );
    await pool.query(migration.sql);
    const { rows: after } = await pool.query(
      `SELECT email, suppressed_until, manual_suppressed_at, manual_suppressed_until FROM recipients
        WHERE environment_id = $1 ORDER BY email`,
      [scope.environmentId],
    );
    expect(after).toEqual([
      {
        email: 'bounced@example.com',
        suppressed_until: t(29),
        manual_suppressed_at: null,
        manual_suppressed_until: null,
      },
      {
        email: 'long@example.com',
        suppressed_until: null,
        manual_suppressed_at: t(-2),
        manual_suppressed_until: t(365),
      },
      {
        email: 'operator@example.com',
        suppressed_until: null,
        manual_suppressed_at: t(-2),
        manual_suppressed_until: t(30),
      },
    ]);
  });
});
