// The embedded database's data directory holds every tenant's mail and secrets: only its owner may
// read it, also when it was made earlier with looser modes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import { backend } from './harness.js';

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
