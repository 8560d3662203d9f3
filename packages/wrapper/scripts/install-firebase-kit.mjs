#!/usr/bin/env node
// Installs the Firebase kit (packages/wrapper/firebase: the Functions runtime, firebase-admin, the
// emulator, nock) from its own lockfile, once: only `npm run test:firebase` and a Firebase deploy
// need it, so it stays out of the repository's `npm install` (it is ~730 packages). A kit already
// installed from the same lockfile is kept. re2's install script, which compiles it from source for
// minutes, is denied in the kit's allowScripts (npm 11): superstatic, the emulator's static server,
// loads re2 only if it can and uses RegExp otherwise.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const kitDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../firebase');

export function installFirebaseKit({ log = console.log } = {}) {
  const lock = fs.readFileSync(path.join(kitDir, 'package-lock.json'));
  const digest = createHash('sha256').update(lock).digest('hex');
  const marker = path.join(kitDir, 'node_modules', '.mailsvc-kit-lock-sha256');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === digest) return;
  log('installing the Firebase kit (packages/wrapper/firebase) from its lockfile');
  const started = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: kitDir,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`npm ci of the Firebase kit failed (exit ${r.status})`);
  fs.writeFileSync(marker, digest);
  log(`Firebase kit installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) installFirebaseKit();
