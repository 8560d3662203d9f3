// `mailsvc contacts import` on PostgreSQL: a generated 100,000-row CSV (email, name and three
// custom fields) imported into an empty tenant, then imported again (every row an update), with
// --group; contacts per second through importContacts (what the command runs, minus the process
// start). Also, to see where the time goes: the same file read and checked without writing
// (csv-parse + the API's row rules), and per batch size. With --copy and psql on the PATH, the
// database side alone through COPY (a temporary table, then one INSERT … SELECT … ON CONFLICT):
// what COPY could save at most, with no checks at all. A temporary database is created and dropped.
// Run: npx tsx bench/import.ts [--batches] [--copy]   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { IMPORT_BATCH_SIZE, importContacts } from '../packages/server/src/domain/contacts/import-contacts.js';
import { openBenchDatabase, seedBenchScope } from './contacts-data.js';

const ROWS = 100_000;
const file = path.join(os.tmpdir(), `mailsvc-bench-import-${process.pid}.csv`);

function writeCsv(): number {
  const lines = ['email,name,company,plan,seats'];
  const plans = ['free', 'pro', 'team'];
  for (let i = 0; i < ROWS; i++)
    lines.push(
      `user${i}@example${i % 97}.com,User ${i} Person,"Company ${i % 1000}, Inc.",${plans[i % 3]},${i % 50}`,
    );
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return fs.statSync(file).size;
}

const bytes = writeCsv();
const bench = await openBenchDatabase('import');
const results: string[] = [];
const say = (line: string) => {
  results.push(line);
  console.log(line);
};
try {
  console.log(`${ROWS.toLocaleString('en')} rows, ${(bytes / 1e6).toFixed(1)} MB; node ${process.version}`);
  const deps = bench.runtime.deps;
  const time = async (label: string, run: () => Promise<unknown>) => {
    const t0 = performance.now();
    const out = await run();
    const s = (performance.now() - t0) / 1000;
    say(`| ${label} | ${s.toFixed(2)} s | ${Math.round(ROWS / s).toLocaleString('en')} |`);
    return out;
  };
  const importInto = (environmentId: string, batchSize = IMPORT_BATCH_SIZE) =>
    importContacts(deps, {
      environmentId,
      input: fs.createReadStream(file),
      groupSlug: 'imported',
      actor: 'bench',
      batchSize,
    });
  say('| run | time | contacts/s |');
  say('|---|---|---|');
  // Read and check only, no database: csv-parse and the API's row rules, as the import runs them.
  await time('read + check only (no writes)', async () => {
    const { parse } = await import('csv-parse');
    const { schemaProblems, toContactWrite } = await import(
      '../packages/server/src/domain/contacts/contact-input.js'
    );
    const parser = fs.createReadStream(file).pipe(parse({ bom: true, info: true, relax_column_count: true }));
    let header = true;
    for await (const { record } of parser as AsyncIterable<{ record: string[] }>) {
      if (header) {
        header = false;
        continue;
      }
      const body = {
        email: record[0]!,
        name: record[1]!,
        customFields: { company: record[2]!, plan: record[3]!, seats: record[4]! },
      };
      if (schemaProblems(body).length > 0 || !toContactWrite(body, '', new Date()).ok)
        throw new Error('invalid');
    }
  });
  const first = await seedBenchScope(bench, 'Import');
  const created = await time(`import into an empty tenant (batches of ${IMPORT_BATCH_SIZE})`, () =>
    importInto(first.environmentId),
  );
  const updated = await time('the same file again (every row an update)', () =>
    importInto(first.environmentId),
  );
  console.log(JSON.stringify({ created, updated }));
  if (process.argv.includes('--batches')) {
    for (const size of [500, 1000, 2000, 5000]) {
      const scope = await seedBenchScope(bench, `Batch${size}`);
      await time(`import, batches of ${size}`, () => importInto(scope.environmentId, size));
    }
  }
  if (process.argv.includes('--copy') && spawnSync('psql', ['--version']).status === 0) {
    const scope = await seedBenchScope(bench, 'Copy');
    await time('database side only: COPY + INSERT … SELECT … ON CONFLICT (no checks)', async () => {
      const script = `
        CREATE TEMP TABLE staged (email text, name text, company text, plan text, seats text);
        \\copy staged FROM '${file}' WITH (FORMAT csv, HEADER true)
        INSERT INTO contacts (id, tenant_id, email, name, custom_fields, created_at, updated_at)
        SELECT 'ct_' || lpad(upper(to_hex(row_number() OVER ())), 26, '0'), '${scope.tenantId}', lower(email), name,
               jsonb_build_object('company', company, 'plan', plan, 'seats', seats), now(), now()
        FROM staged
        ON CONFLICT (tenant_id, email) DO UPDATE SET custom_fields = contacts.custom_fields || excluded.custom_fields;`;
      const r = spawnSync('psql', [bench.url, '-v', 'ON_ERROR_STOP=1', '-q'], { input: script });
      if (r.status !== 0) throw new Error(String(r.stderr));
    });
  }
  const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM contacts`.execute(bench.db);
  console.log(`contacts stored: ${count.rows[0]!.n}`);
} finally {
  await bench.close();
  fs.rmSync(file, { force: true });
}
