#!/usr/bin/env node
// npm run test:firebase — what needs the Firebase kit (packages/wrapper/firebase, installed here
// from its own lockfile, once), then the wrapper as a real Firebase function in the Functions
// emulator, offline, no login (a demo- project), against a real local core:
//   install the kit → its tests (App Check with the real firebase-admin verifier, offline) and its
//   typecheck → build functions/ (node_modules linked to the kit's) → start `mailsvc start` (temp
//   data dir, free ports) → write the function's settings (.env.demo-mailsvc) and secret
//   (.secret.local) → start the emulator → POST /demo-mailsvc/europe-west2/mailsvc/auth/login-code
//   → check the core counted the message → tear everything down. Bounded: the emulator part gives
//   up after TOTAL_TIMEOUT_MS.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installFirebaseKit, kitDir } from './install-firebase-kit.mjs';

const PROJECT = 'demo-mailsvc';
const FUNCTION = 'mailsvc';
const EMULATOR_PORT = 5001;
const TOTAL_TIMEOUT_MS = 240_000;
const ORIGIN = 'https://app.example.com';

const wrapperDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.resolve(wrapperDir, '../..');
const functionsDir = path.join(wrapperDir, 'functions');
const started = Date.now();
const children = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-fb-'));
const log = (s) => console.log(`[test:firebase +${((Date.now() - started) / 1000).toFixed(1)}s] ${s}`);

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function isPortFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function start(name, cmd, args, opts) {
  // Own process group, so teardown reaches npx's children (the emulator's JVM-free node workers).
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onData = (c) => {
    output += c;
    if (process.env.VERBOSE) process.stdout.write(`[${name}] ${c}`);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const entry = { name, child, output: () => output, exited: false };
  child.on('exit', () => {
    entry.exited = true;
  });
  children.push(entry);
  return entry;
}

async function waitFor(what, fn, timeoutMs) {
  const deadline = Math.min(Date.now() + timeoutMs, emulatorPartStarted + TOTAL_TIMEOUT_MS);
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function stopAll() {
  for (const c of children.reverse()) {
    if (c.exited) continue;
    try {
      process.kill(-c.child.pid, 'SIGINT');
    } catch {}
    const deadline = Date.now() + 15_000;
    while (!c.exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (!c.exited) {
      try {
        process.kill(-c.child.pid, 'SIGKILL');
      } catch {}
    }
  }
  for (const f of [`.env.${PROJECT}`, '.secret.local'])
    fs.rmSync(path.join(functionsDir, f), { force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function main() {
  if (!(await isPortFree(EMULATOR_PORT)))
    throw new Error(`port ${EMULATOR_PORT} is in use; the emulator needs it`);

  log('building functions/');
  const b = spawnSync(process.execPath, [path.join(wrapperDir, 'scripts/build-functions.mjs')], {
    stdio: 'inherit',
  });
  if (b.status !== 0) throw new Error('build failed');
  // The function loads firebase-functions and firebase-admin from functions/node_modules, as on
  // Cloud Build: here, the kit's.
  const linked = path.join(functionsDir, 'node_modules');
  fs.rmSync(linked, { recursive: true, force: true });
  fs.symlinkSync(path.join(kitDir, 'node_modules'), linked, 'dir');

  const corePort = await freePort();
  const coreUrl = `http://127.0.0.1:${corePort}`;
  log(`starting a local core on ${coreUrl}`);
  const core = start('core', process.execPath, [path.join(repo, 'packages/server/bin/mailsvc.js'), 'start'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MAILSVC_DATA_DIR: path.join(tmp, 'data'),
      PORT: String(corePort),
      MAILSVC_WRAPPER_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    },
  });
  const apiKey = await waitFor(
    'the core dev key',
    () => /API key\s+(msk_\S+)/.exec(core.output())?.[1],
    90_000,
  );
  const quota = async () => {
    const r = await fetch(`${coreUrl}/v1/quota`, { headers: { authorization: `Bearer ${apiKey}` } });
    return (await r.json()).quota.environment.usedThisMonth;
  };
  const before = await quota();

  fs.writeFileSync(
    path.join(functionsDir, `.env.${PROJECT}`),
    // A function is public: without App Check it serves only when anonymous callers are allowed.
    `MAILSVC_CORE_URL=${coreUrl}\nMAILSVC_ALLOWED_ORIGINS=${ORIGIN}\nMAILSVC_ALLOW_ANONYMOUS=true\n`,
  );
  fs.writeFileSync(path.join(functionsDir, '.secret.local'), `MAILSVC_API_KEY=${apiKey}\n`, { mode: 0o600 });

  log('starting the Functions emulator');
  const emulator = start(
    'emulator',
    path.join(kitDir, 'node_modules/.bin/firebase'),
    ['emulators:start', '--only', 'functions', '--project', PROJECT],
    {
      cwd: wrapperDir,
      env: { ...process.env, FIREBASE_CLI_DISABLE_UPDATE_CHECK: 'true', CI: 'true', NO_UPDATE_NOTIFIER: '1' },
    },
  );
  const base = `http://127.0.0.1:${EMULATOR_PORT}/${PROJECT}/europe-west2/${FUNCTION}`;
  await waitFor(
    'the emulator',
    async () => {
      if (emulator.exited) throw new Error(`the emulator exited:\n${emulator.output()}`);
      return /All emulators ready/.test(emulator.output());
    },
    120_000,
  );

  log(`POST ${base}/auth/login-code`);
  const res = await fetch(`${base}/auth/login-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ to: 'jane@example.com', data: { code: '482913' }, idempotencyKey: 'emulator-1' }),
  });
  const body = await res.json();
  if (res.status !== 200 || body.ok !== true || !/^msg_/.test(body.messageId))
    throw new Error(`expected 200 accepted, got ${res.status} ${JSON.stringify(body)}\n${emulator.output()}`);
  if (res.headers.get('access-control-allow-origin') !== ORIGIN) throw new Error('missing CORS header');
  const after = await quota();
  if (after !== before + 1) throw new Error(`the core counted ${after - before} messages, expected 1`);
  log(`accepted ${body.messageId}; the core counted it`);

  const refused = await fetch(`${base}/auth/login-code`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
    body: JSON.stringify({ to: 'jane@example.com', data: { code: '1' } }),
  });
  if (refused.status !== 403) throw new Error(`expected 403 for a foreign origin, got ${refused.status}`);
  const invalid = await fetch(`${base}/auth/login-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: 'jane@example.com', data: {}, extra: 1 }),
  });
  if (invalid.status !== 400) throw new Error(`expected 400 for an invalid envelope, got ${invalid.status}`);
  if ((await quota()) !== after) throw new Error('a refused request reached the core');
  if (emulator.output().includes(apiKey)) throw new Error('the API key appeared in the function logs');
  log('refusals checked: foreign origin 403, bad envelope 400, nothing sent');
}

/** A step that needs the kit: a command that must exit 0. */
function step(what, args) {
  log(what);
  const r = spawnSync(process.execPath, args, { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`[test:firebase] FAILED: ${what} (exit ${r.status})`);
    process.exit(1);
  }
}

installFirebaseKit({ log });
step("the Firebase kit's tests (App Check, the real firebase-admin verifier, offline)", [
  path.join(repo, 'node_modules/vitest/vitest.mjs'),
  'run',
  '--config',
  path.join(repo, 'vitest.firebase.config.ts'),
]);
step('typecheck of the Firebase entry and tests', [
  path.join(repo, 'node_modules/typescript/bin/tsc'),
  '-p',
  path.join(kitDir, 'tsconfig.json'),
]);
const emulatorPartStarted = Date.now();

const timer = setTimeout(async () => {
  console.error('[test:firebase] FAILED: over the time limit');
  await stopAll();
  process.exit(1);
}, TOTAL_TIMEOUT_MS + 20_000);

let code = 0;
try {
  await main();
  log('PASSED');
} catch (err) {
  console.error(`[test:firebase] FAILED: ${err.message}`);
  for (const c of children) console.error(`--- ${c.name} output ---\n${c.output().slice(-4000)}`);
  code = 1;
} finally {
  await stopAll();
  clearTimeout(timer);
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
process.exit(code);
