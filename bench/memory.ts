// Resident memory of `mailsvc start` on the embedded database, read from the OS (/proc/PID/status
// VmRSS, not the heap) of the process listening on the API port: 5 s after it answers on an empty
// data directory, and 5 s after 3,000 sends have been accepted and delivered to the capture inbox.
// Each round starts it every way an operator does, in turn (ABBA order): `npm start`, `npx mailsvc
// start`, and the bin run by node as a service manager would; every run is reported, since the
// bar holds for each start, not for a median. Also PGlite alone, opened in memory with its
// defaults, for scale. Linux only (/proc, ss).
// Run: npx tsx bench/memory.ts   (BENCH_SENDS, default 3000; BENCH_ROUNDS, default 4)
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { latestCode } from '../packages/server/quality/console-browser.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SENDS = Number(process.env.BENCH_SENDS ?? 3000);
const CONCURRENCY = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pgliteAlone(): Promise<number> {
  const script = `import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create(); await db.query('select 1');
console.log('ready'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.join(ROOT, 'packages/server'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) =>
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve()),
  );
  await sleep(2000);
  const mb = rssMb(child.pid!);
  child.kill('SIGKILL');
  return mb;
}

/**
 * The console as its first owner opens it on a fresh start: the page, its script (bundled on this
 * first request) and styles, the sign-in with the code from the dev inbox, and the overview's calls.
 */
async function loadConsole(base: string): Promise<void> {
  const email = 'owner@example.com';
  for (const asset of ['/console/', '/console/assets/app.js', '/console/assets/app.css']) {
    const res = await fetch(`${base}${asset}`);
    if (!res.ok) throw new Error(`${asset}: ${res.status}`);
    await res.text();
  }
  const json = { 'content-type': 'application/json' };
  await fetch(`${base}/console/api/sign-in/start`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email }),
  });
  const code = await latestCode(base, email);
  const verified = await fetch(`${base}/console/api/sign-in/verify`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, code }),
  });
  const cookie = verified.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error(`console sign-in: ${verified.status} ${await verified.text()}`);
  const me = (await (await fetch(`${base}/console/api/me`, { headers: { cookie } })).json()) as {
    csrfToken: string;
    memberships: { projects: { environments: { id: string }[] }[] }[];
  };
  const environmentId = me.memberships[0]!.projects[0]!.environments[0]!.id;
  const cred = (await (
    await fetch(`${base}/console/api/credentials`, {
      method: 'POST',
      headers: { ...json, cookie, 'x-csrf-token': me.csrfToken },
      body: JSON.stringify({ environmentId }),
    })
  ).json()) as { apiKey: string };
  const auth = { ...json, authorization: `Bearer ${cred.apiKey}` };
  await Promise.all([
    fetch(`${base}/v1/quota`, { headers: auth }).then((r) => r.text()),
    fetch(`${base}/v1/stats/daily`, { method: 'POST', headers: auth, body: '{}' }).then((r) => r.text()),
    fetch(`${base}/v1/domains/list`, { method: 'POST', headers: auth, body: '{}' }).then((r) => r.text()),
    fetch(`${base}/v1/messages/list`, { method: 'POST', headers: auth, body: '{"pageSize":50}' }).then((r) =>
      r.text(),
    ),
  ]);
}

interface StartFigures {
  afterStart: number;
  /** 5 s after the console was loaded and signed in to (its script bundled, a page's requests). */
  afterConsole: number;
  peak: number;
  afterSends: number;
  acceptPerSecond: number;
  deliveredSeconds: number;
  /** Heap and external memory after the sends, from GET /metrics. */
  split: string;
}

/** The node flags of `npm start` (package.json's start script). */
function npmStartNodeFlags(): string[] {
  const script = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
  const m = /^node ((?:--\S+ )*)packages\/server\/bin\/mailsvc\.js start$/.exec(script);
  if (!m)
    throw new Error(
      `package.json's start script is not 'node [flags] packages/server/bin/mailsvc.js start': ${script}`,
    );
  return m[1]!.trim().split(' ').filter(Boolean);
}

/** The process listening on a TCP port of this host (ss), or undefined while none is. */
function listenerPid(port: number): number | undefined {
  const r = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(r.stdout ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * Runs `command` (a way to start `mailsvc start`) on a fresh data directory; measures the process
 * that listens on the API port, whichever it is (npx and the bin run it in a child).
 */
async function measureStart(command: string[], extraEnv: Record<string, string>): Promise<StartFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-mem-'));
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      MAILSVC_DATA_DIR: dataDir,
      PORT: String(port),
      MAILSVC_WRAPPER_PORT: String(port + 1),
      MAILSVC_INBOUND_PORT: '0',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, signalled as a terminal's Ctrl+C would be
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; !/Press Ctrl\+C/.test(out); i++) {
    if (i > 600) throw new Error(`mailsvc start did not come up:\n${out}`);
    await sleep(100);
  }
  const pid = listenerPid(port);
  if (!pid) throw new Error(`nothing listens on port ${port}`);
  // 5 s after it answers, as an operator would look
  await sleep(5000);
  const afterStart = rssMb(pid);
  await loadConsole(base);
  await sleep(5000);
  const afterConsole = rssMb(pid);
  const key = fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim();
  // The demo plan's quota (3,000 a month) and rate limit (100/s) would stop or pace the sends.
  const admin = spawn(
    process.execPath,
    [
      path.join(ROOT, 'packages/server/bin/mailsvc.js'),
      'admin',
      'plans',
      'update',
      '--id',
      'demo',
      '--monthly-limit',
      String(SENDS * 10),
      '--rate-limit-per-second',
      '0',
    ],
    { cwd: ROOT, env: { ...process.env, MAILSVC_DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const code = await new Promise((r) => admin.once('exit', r));
  if (code !== 0) throw new Error(`admin plans update exited ${code}`);

  let next = 0;
  let peak = afterStart;
  const started = performance.now();
  const lane = async () => {
    while (next < SENDS) {
      const i = next++;
      const res = await fetch(`${base}/v1/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          templateId: 'login-code',
          to: `user${i}@example.com`,
          data: { code: '482913' },
        }),
      });
      if (res.status !== 200) throw new Error(`send ${i}: ${res.status} ${await res.text()}`);
      if (i % 500 === 0) peak = Math.max(peak, rssMb(pid));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const acceptSeconds = (performance.now() - started) / 1000;
  // delivered when the inbox holds every message
  const inbox = path.join(dataDir, 'inbox');
  for (;;) {
    const n = fs.existsSync(inbox) ? fs.readdirSync(inbox).filter((f) => f.endsWith('.eml')).length : 0;
    peak = Math.max(peak, rssMb(pid));
    if (n >= SENDS) break;
    await sleep(500);
  }
  const deliveredSeconds = (performance.now() - started) / 1000;
  await sleep(5000);
  const afterSends = rssMb(pid);
  // Where it is: the V8 heap, and memory outside it (PGlite's WebAssembly memory, buffers).
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const gauge = (name: string) =>
    Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? 0) / 1048576);
  const split = `heap ${gauge('mailsvc_nodejs_heap_size_total_bytes')} MB (${gauge('mailsvc_nodejs_heap_size_used_bytes')} used), external ${gauge('mailsvc_nodejs_external_memory_bytes')} MB`;
  process.kill(-child.pid!, 'SIGINT');
  await new Promise((r) => child.once('exit', r));
  for (let i = 0; listenerPid(port) && i < 100; i++) await sleep(100);
  fs.rmSync(dataDir, { recursive: true, force: true });

  return {
    afterStart,
    afterConsole,
    peak,
    afterSends,
    acceptPerSecond: SENDS / acceptSeconds,
    deliveredSeconds,
    split,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return Math.round(s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2);
};

async function main() {
  const bin = path.join(ROOT, 'packages/server/bin/mailsvc.js');
  // BENCH_CONFIGS='[["name", ["command", "arg", …], {"ENV": "value"}], …]' compares other ways.
  const configs: [string, string[], Record<string, string>][] = process.env.BENCH_CONFIGS
    ? JSON.parse(process.env.BENCH_CONFIGS)
    : [
        [`npm start (node ${npmStartNodeFlags().join(' ')})`, ['npm', 'start', '--silent'], {}],
        ['npx mailsvc start', ['npx', 'mailsvc', 'start'], {}],
        [
          'node packages/server/bin/mailsvc.js start (a service manager)',
          [process.execPath, bin, 'start'],
          {},
        ],
      ];
  const results = new Map<string, StartFigures[]>(configs.map(([name]) => [name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate the order (ABBA…): whichever runs second in a round profits from a warmer machine.
    for (const [name, command, env] of round % 2 === 1 ? configs : [...configs].reverse()) {
      const f = await measureStart(command, env);
      results.get(name)!.push(f);
      console.log(
        `round ${round}, ${name}: after start ${f.afterStart} MB, with the console loaded ${f.afterConsole} MB, after ${SENDS} sends ${f.afterSends} MB (peak ${f.peak}), accept ${Math.round(f.acceptPerSecond)}/s, all captured after ${f.deliveredSeconds.toFixed(1)} s; ${f.split}`,
      );
    }
  }
  const alone = await pgliteAlone();
  console.log(
    `\nmailsvc start on the embedded database, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${ROUNDS} rounds, medians; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`\nPGlite alone, in memory, defaults: ${alone} MB resident\n`);
  // Every run, not the median: the bar is for each start (≤ 300 MB after start, ≤ 400 after the sends).
  console.log(
    `| how it was started | after start-up MB, every run (max) | with the console loaded MB, every run (max) | after ${SENDS.toLocaleString('en')} sends MB, every run (max) | peak MB | accepts/s (median) |\n|---|---|---|---|---|---|`,
  );
  for (const [name] of configs) {
    const rs = results.get(name)!;
    const runs = (pick: (r: StartFigures) => number) =>
      `${rs.map(pick).join(', ')} (${Math.max(...rs.map(pick))})`;
    console.log(
      `| ${name} | ${runs((r) => r.afterStart)} | ${runs((r) => r.afterConsole)} | ${runs((r) => r.afterSends)} | ${Math.max(...rs.map((r) => r.peak))} | ${Math.round(median(rs.map((r) => r.acceptPerSecond)))} |`,
    );
  }
}

await main();
