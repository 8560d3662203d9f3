// Builds one migrated PGlite database and dumps it, once per run for every project that uses it;
// every test file loads the dump (≈0.6 s) instead of running initdb and the migrations again (≈3 s).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { PGLITE_EXTENSIONS } from '@mailsvc/server/src/db/connection.js';
import { migrate } from '@mailsvc/server/src/db/migrate.js';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
  }
}

/** One dump for the run, shared by the projects whose files use the harness (service, database). */
interface SharedDump {
  file: Promise<string>;
  users: number;
}
const shared = globalThis as { mailsvcPgliteDump?: SharedDump };

async function makeDump(): Promise<string> {
  const pglite = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  const pool = new pg.Pool(createPgConfig(pglite));
  await migrate(pool);
  await pool.end();
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-test-'));
  const file = path.join(dir, 'pglite.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return file;
}

export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('pgliteDump', '');
    return;
  }
  shared.mailsvcPgliteDump ??= { file: makeDump(), users: 0 };
  const dump = shared.mailsvcPgliteDump;
  dump.users += 1;
  const file = await dump.file;
  project.provide('pgliteDump', file);
  return () => {
    dump.users -= 1;
    if (dump.users > 0) return;
    shared.mailsvcPgliteDump = undefined;
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  };
}
