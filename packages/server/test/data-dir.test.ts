// The embedded database's data directory holds every tenant's mail and secrets: only its owner may
// read it, also when it was made earlier with looser modes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backend } from '@mailsvc/testkit/harness';
import { expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';

function modes(dir: string): { path: string; mode: number; isDir: boolean }[] {
  const out = [{ path: dir, mode: fs.statSync(dir).mode & 0o777, isDir: true }];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...modes(full));
    else if (entry.isFile()) out.push({ path: full, mode: fs.statSync(full).mode & 0o777, isDir: false });
  }
  return out;
}

it.runIf(backend === 'pglite')(
  'tightens the data directory to its owner: directories 0700, files 0600, including ones made before',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-modes-'));
    fs.chmodSync(dataDir, 0o755);
    fs.mkdirSync(path.join(dataDir, 'inbox'), { mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'inbox', 'old.eml'), 'x', { mode: 0o666 });
    fs.chmodSync(path.join(dataDir, 'inbox', 'old.eml'), 0o666);
    const database = await openDatabase({ dataDir, command: 'test' });
    try {
      const all = modes(dataDir);
      expect(all.length).toBeGreaterThan(100); // PGlite's own files are among them
      const loose = all.filter((e) => e.mode !== (e.isDir ? 0o700 : 0o600));
      expect(loose.map((e) => `${e.path} ${e.mode.toString(8)}`)).toEqual([]);
    } finally {
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

it.runIf(backend === 'pglite')(
  'creates a new data directory in a child process and opens it with small buffers, keeping its data across opens',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-initdb-'));
    try {
      const first = await openDatabase({ dataDir, command: 'test', pgliteSharedBuffersMb: 24 });
      try {
        expect(fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
        const { rows } = await first.pool.query<{ shared_buffers: string }>('SHOW shared_buffers');
        expect(rows[0]!.shared_buffers).toBe('24MB');
        await first.pool.query('CREATE TABLE kept (v text)');
        await first.pool.query("INSERT INTO kept VALUES ('still here')");
      } finally {
        await first.close();
      }
      const second = await openDatabase({ dataDir, command: 'test' });
      try {
        const { rows } = await second.pool.query<{ v: string; shared_buffers: string }>(
          'SELECT v, current_setting($1) AS shared_buffers FROM kept',
          ['shared_buffers'],
        );
        expect(rows).toEqual([{ v: 'still here', shared_buffers: '16MB' }]);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

it.runIf(backend === 'pglite')(
  'makes a new database in a staging directory: leftovers of an interrupted first start are removed, a half-made pgdata is refused with what to do',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-staging-'));
    try {
      // An interrupted first start: its staging directory, half written.
      fs.mkdirSync(path.join(dataDir, 'pgdata.init-99999', 'base'), { recursive: true });
      fs.writeFileSync(path.join(dataDir, 'pgdata.init-99999', 'PG_VERSION'), '17\n');
      const database = await openDatabase({ dataDir, command: 'test' });
      await database.close();
      expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('pgdata'))).toEqual(['pgdata']);

      const other = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-halfmade-'));
      try {
        fs.mkdirSync(path.join(other, 'pgdata', 'base'), { recursive: true });
        await expect(openDatabase({ dataDir: other, command: 'test' })).rejects.toThrow(
          /holds files but no database \(no PG_VERSION\).*Move it away/,
        );
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
