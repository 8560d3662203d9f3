// POST /v1/contacts/list on PostgreSQL with a 100,000-contact tenant (and a 50,000-contact
// neighbour): for each query shape, the statement listContactRecords runs (built by the
// repository, so the plan is the real one), its median time over 20 runs and its EXPLAIN
// (ANALYZE, BUFFERS) plan. Data: 2% unsubscribed, 0.5% complained, 1% in cooldown, 0.2%
// suppressed in the key's environment; groups newsletter (50%), beta (1%), vip (0.1%); 30% of
// the contacts emailed once or twice. A temporary database is created and dropped.
// Run: npx tsx bench/contacts-list.ts [--plans]   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import pg from 'pg';
import { type ContactPageQuery, contactPageSql } from '../packages/server/src/db/repositories/contacts.js';
import { escapeLikePattern } from '../packages/server/src/domain/contacts/list-contacts.js';
import { openBenchDatabase, seedBenchContacts } from './contacts-data.js';

const SHOW_PLANS = process.argv.includes('--plans');
const RUNS = 20;

const bench = await openBenchDatabase('list');
try {
  const scope = await seedBenchContacts(bench, { contacts: 100_000, neighbour: 50_000 });
  const s = { tenantId: scope.tenantId, environmentId: scope.environmentId, now: new Date() };
  const page = (q: Partial<ContactPageQuery>): ContactPageQuery => ({ filters: [], limit: 51, ...q });
  const shapes: [string, ContactPageQuery][] = [
    ['first page', page({})],
    ['page after 90,000 contacts', page({ afterId: scope.idAt(90_000) })],
    ['search, common ("example1")', page({ searchPattern: escapeLikePattern('example1') })],
    ['search, one match ("user77777@")', page({ searchPattern: escapeLikePattern('user77777@') })],
    ['search, no match ("zzz")', page({ searchPattern: 'zzz' })],
    ['status eq active', page({ filters: [{ field: 'status', op: 'eq', values: ['active'] }] })],
    [
      'status eq complained (0.5%)',
      page({ filters: [{ field: 'status', op: 'eq', values: ['complained'] }] }),
    ],
    ['status neq active (3.7%)', page({ filters: [{ field: 'status', op: 'neq', values: ['active'] }] })],
    ['group eq newsletter (50%)', page({ filters: [{ field: 'group', op: 'eq', values: ['newsletter'] }] })],
    ['group eq vip (0.1%)', page({ filters: [{ field: 'group', op: 'eq', values: ['vip'] }] })],
    ['group neq newsletter', page({ filters: [{ field: 'group', op: 'neq', values: ['newsletter'] }] })],
    [
      'environment eq (emailed, 30%)',
      page({ filters: [{ field: 'environment', op: 'eq', values: [scope.environmentId] }] }),
    ],
    [
      'lastEmailedAt after (1%)',
      page({ filters: [{ field: 'lastEmailedAt', op: 'after', value: scope.recentCutoff }] }),
    ],
    ['suppressed eq true (1.2%)', page({ filters: [{ field: 'suppressed', value: true }] })],
    [
      'group vip + status active + search',
      page({
        searchPattern: 'user',
        filters: [
          { field: 'group', op: 'eq', values: ['vip'] },
          { field: 'status', op: 'eq', values: ['active'] },
        ],
      }),
    ],
  ];
  const client = new pg.Client({ connectionString: bench.url });
  await client.connect();
  try {
    console.log(`PostgreSQL ${(await client.query('SHOW server_version')).rows[0].server_version}`);
    console.log('| query | rows | median ms | p95 ms |');
    console.log('|---|---|---|---|');
    const plans: string[] = [];
    for (const [name, q] of shapes) {
      const compiled = contactPageSql(s, q).compile(bench.db);
      const params = compiled.parameters as unknown[];
      let rows = 0;
      for (let i = 0; i < 3; i++) rows = (await client.query(compiled.sql, params)).rowCount ?? 0; // warm
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = process.hrtime.bigint();
        await client.query(compiled.sql, params);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
      console.log(`| ${name} | ${rows} | ${at(0.5)} | ${at(0.95)} |`);
      if (SHOW_PLANS) {
        const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${compiled.sql}`, params);
        plans.push(`### ${name}\n\n\`\`\`\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\``);
      }
    }
    if (SHOW_PLANS) console.log(`\n${plans.join('\n\n')}`);
  } finally {
    await client.end();
  }
} finally {
  await bench.close();
}
