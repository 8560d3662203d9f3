// Delivery as an operator runs it: `mailsvc worker`, started by its CLI as its own process with its
// defaults (PostgreSQL, MAILSVC_WORKER_CONCURRENCY and MAILSVC_SMTP_POOL_SIZE unset), delivering a
// backlog of DKIM-signed login codes to an SMTP sink in its own process (bench/smtp-sink.mjs);
// against raw nodemailer in its own process (bench/nodemailer-baseline.mjs: pool 5, 16 in flight,
// the same DKIM key, the same sink, the messages mailsvc rendered), rounds alternating. Each
// worker round starts a new worker process on a queue of N accepted messages, as an operator's
// deploy does; each baseline round a new nodemailer process.
// Two times per round, both ratios reported: first to last message at the sink, and start to drain
// (the worker: its "is running" banner → every outcome recorded; the baseline: loaded and starting
// to send → the last message at the sink). The worker's process start-up (spawned → banner) is
// reported on its own, with the CPU it took.
// Every round is checked: the sink's count equals the messages sent (no loss, no duplicate), every
// worker message is `sent` in the database, and a sample (every 250th message at the sink) is
// parsed back with mailparser and its DKIM signature verified with mailauth.
// Also reported: CPU time per message after start-up (/proc: threads included; the worker's main
// thread apart, and PostgreSQL's backends and the sink during the worker's rounds), the database's
// transactions and the claim/record calls per message (pg_stat_statements when the server loads
// it, else pg_stat_user_functions with track_functions on the bench's database), and the pick-up
// latency of a single login code (accept → at the sink) with a worker process idle.
// Run: npx tsx bench/delivery.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_MESSAGES per round, default 4000; BENCH_ROUNDS, default 4; BENCH_LOAD=1 keeps one core busy
// in another process for the whole run; BENCH_CPU_PROF=DIR writes a V8 CPU profile of each worker
// round into DIR (summarise with `node bench/cpu-profile-summary.mjs DIR/…`); BENCH_WORKER_ENV='{"K":"V"}'
// sets worker settings instead of the defaults; BENCH_VARIANT_ENV='{"K":"V"}' adds a worker round
// (the key DROP_LIST_INDEXES="1": that round without the message list's indexes, as before issue 26;
// CLAIM_BEFORE_SCHEDULING="1": with the claim as before scheduled sends, no queueing of due ones;
// WEBHOOK_ENDPOINTS="2": with that many webhook endpoints subscribed to every event, issue 27;
// DOMAIN_SWEEP="1000": starting on that many sending domains due for their DNS check, see below)
// with those settings to every round, reported beside the defaults (a "NODE_FLAGS" key: a JSON
// list of node flags for it); BENCH_WORKER_NODE_FLAGS='["--flag"]' node flags for every worker)
// DOMAIN_SWEEP="N" (bench/domains.ts runs it so): the variant round's worker starts with N sending
// domains of another tenant due for their check (pending, next_check_at = now; inserted just before
// it starts), every record published correctly in a DNS server in its own process on 127.0.0.1
// (bench/dns-server.mjs), and MAILSVC_DNS_SERVERS, MAILSVC_INBOUND_MX_HOST and MAILSVC_RETURN_PATH_SPF
// set to it and to what was published, so every check verifies. The domains share one RSA-2048 key
// pair (a key each would take minutes to make). Reported beside the ratios: the domains checked while
// the mail drained and the sweep's domains/s; the domains are deleted after each variant round (with
// the events their checks left). The tenant, its N environments and the DNS server exist from the
// start, so every round runs on the same database.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTemplate, renderVersion, validateTemplateData } from '@mailsvc/templates';
import { simpleParser } from 'mailparser';
import { insertEndpoint } from '../packages/server/src/db/repositories/webhook-endpoints.js';
import { SIGNED_HEADERS } from '../packages/server/src/delivery/dkim.js';
import { checkDkim } from '../packages/server/src/dev/inbox/check-dkim.js';
import { newId } from '../packages/server/src/ids.js';
import { newWebhookSecret } from '../packages/server/src/webhooks/signing.js';
import { openBenchTenant } from './bench-tenant.js';
import { type DomainSweep, openDomainSweep } from './domains.js';
import { backendCpu, cpuSeconds, exited, mainThreadCpuSeconds, threadCpuSeconds } from './process-cpu.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
const WORKER_ENV: Record<string, string> = JSON.parse(process.env.BENCH_WORKER_ENV ?? '{}');
/** Node flags for every worker process (V8's own are not allowed in NODE_OPTIONS). */
const WORKER_NODE_FLAGS: string[] = JSON.parse(process.env.BENCH_WORKER_NODE_FLAGS ?? '[]');
/** A second worker configuration measured in the same rounds, for a change's before and after. */
const VARIANT_ENV: Record<string, string> | undefined = process.env.BENCH_VARIANT_ENV
  ? JSON.parse(process.env.BENCH_VARIANT_ENV)
  : undefined;
/** The baseline: nodemailer's pool and the concurrent sendMail calls an app would make. */
const BASELINE = { pool: 5, inFlight: 16 };
const PICKUPS = 50;

interface SinkEvent {
  id: string;
  t: number;
  /** A sampled message, whole (base64). */
  raw?: string;
}

async function startSink(): Promise<{ port: number; child: ChildProcess; events: SinkEvent[] }> {
  const child = fork(path.join(ROOT, 'bench/smtp-sink.mjs'));
  const events: SinkEvent[] = [];
  const port = await new Promise<number>((resolve) =>
    child.on('message', (m: { port?: number; events?: SinkEvent[] }) => {
      if (m.port) resolve(m.port);
      else for (const e of m.events!) events.push(e);
    }),
  );
  return { port, child, events };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 180_000, progress?: () => string) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out (${progress?.() ?? ''})`);
    await sleep(5);
  }
}

interface Round {
  /** msg/s, first to last message at the sink. */
  atSink: number;
  /** msg/s at the sink in each quarter of the round's messages (warm-up in the first, tail in the last). */
  quarters: number[];
  /** msg/s, process start to drain. */
  startToDrain: number;
  /** ms of the process's CPU per message (the worker: after its start-up). */
  cpuMs: number;
  /** The worker: spawned → its banner, and the CPU that took. */
  startup?: { ms: number; cpuSeconds: number };
  /** The worker: where its CPU after start-up went, and the other processes', ms per message. */
  split?: { mainThread: number; otherThreads: number; postgres: number; sink: number };
  /** The worker: its CPU after start-up by thread name, ms per message. */
  threads?: Map<string, number>;
  /** The worker: when its banner came and when every outcome was recorded (ms since the epoch). */
  at?: { ready: number; recorded: number };
}

async function main() {
  const sink = await startSink();
  const bench = await openBenchTenant(BASE_URL, 'bench');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-delivery-'));
  const load = process.env.BENCH_LOAD
    ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    : undefined;
  try {
    const { runtime, app, apiKey, domain } = bench;
    const pool = runtime.database.pool;
    const dbName = (await pool.query('SELECT current_database() AS d')).rows[0].d as string;
    const statements = await openStatementCounts(pool, dbName);
    const keyRow = await runtime.deps.db
      .selectFrom('sending_domains')
      .select(['dkim_selector', 'dkim_private_key'])
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    const send = (i: number) =>
      app.inject({
        method: 'POST',
        url: '/v1/send',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          templateId: 'login-code',
          to: `user${i}@example.com`,
          data: { code: String(100000 + (i % 900000)) },
        }),
      });
    let sent = 0;
    const accept = async (n: number) => {
      for (let i = 0; i < n; i += 50) {
        const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => send(sent++)));
        const refused = batch.find((r) => r.statusCode !== 200);
        if (refused) throw new Error(`accept: ${refused.statusCode} ${refused.body}`);
      }
    };

    // The baseline's input: the same messages, rendered by mailsvc's renderer beforehand.
    const { version } = getTemplate('login-code');
    const baselineJob = path.join(tmp, 'baseline.json');
    fs.writeFileSync(
      baselineJob,
      JSON.stringify({
        port: sink.port,
        domain,
        selector: keyRow.dkim_selector,
        privateKey: keyRow.dkim_private_key,
        signedHeaders: SIGNED_HEADERS.join(':'),
        prefix: 'base_',
        ...BASELINE,
        messages: Array.from({ length: MESSAGES }, (_, i) => {
          const checked = validateTemplateData(version, { code: String(100000 + i) });
          if (!checked.ok) throw new Error('bad fixture');
          const r = renderVersion(version, checked.data, {
            projectName: 'Bench App',
            environmentName: 'production',
          });
          return { to: `user${i}@example.com`, subject: r.subject, html: r.html, text: r.text };
        }),
      }),
    );
    const publicKeyPem = createPublicKey(createPrivateKey(keyRow.dkim_private_key!)).export({
      type: 'spki',
      format: 'pem',
    }) as string;
    // the dev inbox's checker: mailauth with the selector's key answered from here, not DNS
    const findPublicKey = async (d: string, selector: string) =>
      d === domain && selector === keyRow.dkim_selector ? publicKeyPem : null;
    let verified = 0;
    /** The round's events at the sink: exactly one per message, and every sample parses and verifies. */
    async function check(label: string, events: SinkEvent[], idPrefix: string): Promise<void> {
      const ids = new Set(events.map((e) => e.id));
      if (events.length !== MESSAGES || ids.size !== MESSAGES)
        throw new Error(`${label}: ${events.length} at the sink (${ids.size} distinct) for ${MESSAGES} sent`);
      for (const e of events.filter((x) => x.raw)) {
        const raw = Buffer.from(e.raw!, 'base64');
        const parsed = await simpleParser(raw);
        if (!parsed.subject || !parsed.html || !parsed.text || !e.id.startsWith(idPrefix))
          throw new Error(`${label}: message ${e.id} did not parse back`);
        const dkim = await checkDkim(raw, findPublicKey);
        if (dkim.result !== 'pass' || dkim.signatures[0]?.domain !== domain)
          throw new Error(`${label}: DKIM of ${e.id}: ${dkim.result}`);
        verified++;
      }
    }
    const firstToLast = (events: SinkEvent[]) => MESSAGES / ((events.at(-1)!.t - events[0]!.t) / 1000);
    const quarters = (events: SinkEvent[]) =>
      [0, 1, 2, 3].map((q) => {
        const from = Math.floor((q * MESSAGES) / 4);
        const to = Math.floor(((q + 1) * MESSAGES) / 4) - 1;
        return (to - from) / Math.max(0.001, (events[to]!.t - events[from]!.t) / 1000);
      });

    async function baseline(): Promise<Round> {
      const start = sink.events.length;
      const child = spawn(process.execPath, [path.join(ROOT, 'bench/nodemailer-baseline.mjs'), baselineJob], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      // Its lines: "ready" when loaded, then "cpu <µs>" (its own count, sending only) at the end.
      let readyAt: number | undefined;
      let out = '';
      child.stdout!.on('data', (d) => {
        readyAt ??= Date.now();
        out += d;
      });
      await until(
        () => sink.events.length - start >= MESSAGES,
        180_000,
        () => `${sink.events.length - start} at the sink`,
      );
      const drained = sink.events[start + MESSAGES - 1]!.t;
      if ((await exited(child)) !== 0) throw new Error('the nodemailer baseline failed');
      const cpuMicros = Number(/^cpu (\d+)$/m.exec(out)?.[1]);
      await sleep(200); // a duplicate would arrive within this
      const events = sink.events.slice(start);
      await check('baseline', events, 'base_');
      return {
        atSink: firstToLast(events),
        quarters: quarters(events),
        startToDrain: MESSAGES / ((drained - readyAt!) / 1000),
        cpuMs: cpuMicros / 1000 / MESSAGES,
      };
    }

    const workerEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: runtime.config.DATABASE_URL!,
      MAILSVC_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      MAILSVC_PUBLIC_URL: 'https://mail.bench.test',
      // the WEBHOOK_ENDPOINTS variant's receiver is on 127.0.0.1 (no effect on mail)
      MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      MAILSVC_DATA_DIR: path.join(tmp, 'data'),
      ...WORKER_ENV,
    };
    for (const k of ['MAILSVC_WORKER_CONCURRENCY', 'MAILSVC_SMTP_POOL_SIZE', 'LOG_LEVEL'])
      if (!(k in WORKER_ENV)) delete workerEnv[k];
    /** `mailsvc worker` as the README starts it; its log read (and dropped) through a pipe, as a service manager would. */
    function startWorker(env = workerEnv): ChildProcess & {
      ready: Promise<{ t: number; cpu: number; mainThread: number; threads: Map<string, number> }>;
    } {
      const nodeFlags = [
        ...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
        ...WORKER_NODE_FLAGS,
        ...(env.NODE_FLAGS ? (JSON.parse(env.NODE_FLAGS) as string[]) : []),
      ];
      const bin = path.join(ROOT, 'packages/server/bin/mailsvc.js');
      const child = spawn(process.execPath, [...nodeFlags, bin, 'worker'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let errors = '';
      const ready = new Promise<{ t: number; cpu: number; mainThread: number; threads: Map<string, number> }>(
        (resolve) => {
          let banner = '';
          const onData = (d: Buffer) => {
            banner += d;
            if (banner.includes('mailsvc worker is running')) {
              child.stdout!.off('data', onData);
              child.stdout!.resume();
              resolve({
                t: Date.now(),
                cpu: cpuSeconds(child.pid!),
                mainThread: mainThreadCpuSeconds(child.pid!),
                threads: threadCpuSeconds(child.pid!),
              });
            } else if (banner.length > 65536) banner = banner.slice(-1024);
          };
          child.stdout!.on('data', onData);
        },
      );
      child.stderr!.on('data', (d) => (errors += d));
      child.once('exit', (code) => {
        if (code !== 0) console.error(`mailsvc worker exited ${code}:\n${errors}`);
      });
      return Object.assign(child, { ready });
    }

    const dbCost = { transactions: 0, claims: 0, records: 0, messages: 0 };
    /** A round as before the message list (issue 26): its four indexes dropped, then made again. */
    async function withoutListIndexes<T>(round: () => Promise<T>): Promise<T> {
      const { rows } = await pool.query<{ name: string; def: string }>(
        `SELECT indexname AS name, indexdef AS def FROM pg_indexes
          WHERE tablename = 'messages' AND indexname LIKE 'messages_list_%'`,
      );
      for (const i of rows) await pool.query(`DROP INDEX ${i.name}`);
      try {
        return await round();
      } finally {
        for (const i of rows) await pool.query(i.def);
      }
    }
    /** A round with the claim as before scheduled sends (issue 26): no queueing of due ones first. */
    async function withClaimBeforeScheduling<T>(round: () => Promise<T>): Promise<T> {
      const file = path.join(ROOT, 'packages/server/src/db/functions/claim_messages.sql');
      const now = fs.readFileSync(file, 'utf8');
      const before = now.replace(
        / {2}-- Scheduled sends that fell due[\s\S]*?FOR UPDATE SKIP LOCKED\);\n\n/,
        '',
      );
      if (before === now) throw new Error('CLAIM_BEFORE_SCHEDULING: the promotion step was not found');
      await pool.query(before);
      try {
        return await round();
      } finally {
        await pool.query(now);
      }
    }
    /**
     * A round with `n` webhook endpoints subscribed to every event (issue 27), to a receiver in its
     * own process: the worker delivers mail and, beside it, each message's events to every
     * endpoint. What the receiver got during the round is reported; the endpoints are deleted
     * after it (with whatever deliveries were still waiting).
     */
    let receiver: { port: number; child: ChildProcess; count: number } | undefined;
    const webhookCounts: number[] = [];
    async function withWebhookEndpoints<T>(n: number, round: () => Promise<T>): Promise<T> {
      if (!receiver) {
        const child = fork(path.join(ROOT, 'bench/webhook-receiver.mjs'));
        const r = { port: 0, child, count: 0 };
        await new Promise<void>((resolve) =>
          child.on('message', (m: { port?: number; events?: unknown[] }) => {
            if (m.port) {
              r.port = m.port;
              resolve();
            } else r.count += m.events!.length;
          }),
        );
        receiver = r;
      }
      const env = await runtime.deps.db
        .selectFrom('environments')
        .select(['id', 'tenant_id'])
        .executeTakeFirstOrThrow();
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const e = await insertEndpoint(
          runtime.deps.db,
          {
            id: newId('whe'),
            tenantId: env.tenant_id,
            environmentId: env.id,
            url: `http://127.0.0.1:${receiver.port}/hooks/${i}`,
            description: 'bench',
            eventTypes: null,
            enabled: true,
            rateLimitPerSecond: null,
            secret: newWebhookSecret(),
          },
          new Date(),
        );
        ids.push(e.id);
      }
      const before = receiver.count;
      try {
        return await round();
      } finally {
        webhookCounts.push(receiver.count - before);
        // the round's events not yet made webhook events go with its endpoints, as their deliveries do
        await runtime.deps.db.deleteFrom('webhook_endpoints').where('id', 'in', ids).execute();
        await runtime.deps.db.deleteFrom('webhook_fanout').execute();
        await runtime.deps.db.deleteFrom('webhook_events').execute();
      }
    }
    /**
     * A round whose worker starts with the sweep's domains due for their check (DOMAIN_SWEEP), its
     * checker asking the sweep's DNS server. What it checked while the mail drained is kept for the
     * report; the domains are deleted after the round.
     */
    const sweep: DomainSweep | undefined =
      Number(VARIANT_ENV?.DOMAIN_SWEEP ?? 0) > 0
        ? await openDomainSweep(runtime, Number(VARIANT_ENV!.DOMAIN_SWEEP))
        : undefined;
    const sweepRounds: {
      /** Checked while the mail drained (banner → every outcome recorded), and of those verified. */
      checked: number;
      verified: number;
      perSecond: number;
      /** Banner → the last domain checked, when all were while the mail drained. */
      sweepSeconds?: number;
      drainSeconds: number;
    }[] = [];
    async function withDomainSweep(
      round: (env: Record<string, string>, beforeStart: () => Promise<void>) => Promise<Round>,
    ): Promise<Round> {
      if (!sweep) throw new Error('DOMAIN_SWEEP: the sweep was not opened');
      try {
        const r = await round(sweep.env, () => sweep.seed());
        const during = await sweep.progress(new Date(r.at!.recorded));
        const drainSeconds = (r.at!.recorded - r.at!.ready) / 1000;
        const sweepSeconds =
          during.checked === sweep.domains
            ? (during.lastCheckedAt!.getTime() - r.at!.ready) / 1000
            : undefined;
        sweepRounds.push({
          checked: during.checked,
          verified: during.verified,
          perSecond: during.checked / (sweepSeconds ?? drainSeconds),
          ...(sweepSeconds !== undefined && { sweepSeconds }),
          drainSeconds,
        });
        return r;
      } finally {
        await sweep.clear();
      }
    }
    async function worker(
      isMeasured: boolean,
      env = workerEnv,
      beforeStart?: () => Promise<void>,
    ): Promise<Round> {
      if (Number(env.DOMAIN_SWEEP ?? 0) > 0)
        return withDomainSweep((sweepEnv, seed) =>
          worker(isMeasured, { ...env, DOMAIN_SWEEP: '0', ...sweepEnv }, seed),
        );
      if (Number(env.WEBHOOK_ENDPOINTS ?? 0) > 0)
        return withWebhookEndpoints(Number(env.WEBHOOK_ENDPOINTS), () =>
          worker(isMeasured, { ...env, WEBHOOK_ENDPOINTS: '0' }),
        );
      if (env.DROP_LIST_INDEXES === '1')
        return withoutListIndexes(() => worker(isMeasured, { ...env, DROP_LIST_INDEXES: '0' }));
      if (env.CLAIM_BEFORE_SCHEDULING === '1')
        return withClaimBeforeScheduling(() => worker(isMeasured, { ...env, CLAIM_BEFORE_SCHEDULING: '0' }));
      await accept(MESSAGES);
      await pool.query('ANALYZE messages');
      const before = await statements.read();
      await beforeStart?.();
      const start = sink.events.length;
      const t0 = Date.now();
      const sinkCpu0 = cpuSeconds(sink.child.pid!);
      const pg0 = await backendCpu(pool);
      const child = startWorker(env);
      let ready = { t: 0, cpu: 0, mainThread: 0, threads: new Map<string, number>() };
      void child.ready.then((r) => (ready = r));
      await until(
        () => {
          if (child.exitCode !== null) throw new Error(`mailsvc worker exited ${child.exitCode}`);
          return sink.events.length - start >= MESSAGES;
        },
        180_000,
        () => `${sink.events.length - start} at the sink`,
      );
      // every outcome recorded, not just handed to the sink
      for (;;) {
        const { rows } = await pool.query(
          "SELECT count(*)::int AS n FROM messages WHERE status IN ('queued', 'sending')",
        );
        if (rows[0].n === 0) break;
        await sleep(5);
      }
      const recorded = Date.now();
      const cpu = cpuSeconds(child.pid!);
      const mainThread = mainThreadCpuSeconds(child.pid!);
      const threads = new Map(
        [...threadCpuSeconds(child.pid!)].map(([name, s]) => [
          name,
          ((s - (ready.threads.get(name) ?? 0)) * 1000) / MESSAGES,
        ]),
      );
      const sinkCpu = cpuSeconds(sink.child.pid!) - sinkCpu0;
      let pgCpu = 0;
      for (const [pid, seconds] of await backendCpu(pool)) pgCpu += seconds - (pg0.get(pid) ?? 0);
      child.kill('SIGTERM');
      if ((await exited(child)) !== 0) throw new Error('mailsvc worker did not stop cleanly');
      const after = await statements.read();
      if (isMeasured) {
        dbCost.transactions += after.transactions - before.transactions;
        dbCost.claims += after.claims - before.claims;
        dbCost.records += after.records - before.records;
        dbCost.messages += MESSAGES;
      }
      await sleep(200);
      const events = sink.events.slice(start);
      await check('worker', events, 'msg_');
      return {
        atSink: firstToLast(events),
        quarters: quarters(events),
        startToDrain: MESSAGES / ((recorded - ready.t) / 1000),
        cpuMs: ((cpu - ready.cpu) * 1000) / MESSAGES,
        startup: { ms: ready.t - t0, cpuSeconds: ready.cpu },
        split: {
          mainThread: ((mainThread - ready.mainThread) * 1000) / MESSAGES,
          otherThreads: ((cpu - ready.cpu - (mainThread - ready.mainThread)) * 1000) / MESSAGES,
          postgres: (pgCpu * 1000) / MESSAGES,
          sink: (sinkCpu * 1000) / MESSAGES,
        },
        threads,
        at: { ready: ready.t, recorded },
      };
    }

    // One unmeasured round of each first: the database's caches and the queue's statistics.
    await baseline();
    await worker(false);
    const results: { baseline: Round; worker: Round; variant?: Round }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first (ABBA): the second of a pair profits from a warmer machine.
      const b = r % 2 === 0 ? await baseline() : undefined;
      const w = await worker(true);
      const v = VARIANT_ENV ? await worker(false, { ...workerEnv, ...VARIANT_ENV }) : undefined;
      results.push({ baseline: b ?? (await baseline()), worker: w, ...(v && { variant: v }) });
      console.log(
        `round ${r + 1}: baseline ${Math.round(results[r]!.baseline.atSink)} msg/s, worker ${Math.round(w.atSink)} msg/s`,
      );
    }

    // pick-up latency: a worker process idle, single login codes through LISTEN/NOTIFY
    const live = startWorker();
    await live.ready;
    await sleep(500); // listening for the queue signal
    const latencies: number[] = [];
    for (let i = 0; i < PICKUPS; i++) {
      const t0 = Date.now();
      const res = await send(sent++);
      const id = res.json().messageId as string;
      await until(() => sink.events.some((e) => e.id === id), 10_000);
      latencies.push(sink.events.find((e) => e.id === id)!.t - t0);
      await sleep(20);
    }
    live.kill('SIGTERM');
    await exited(live);
    latencies.sort((a, b) => a - b);

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const mid = Math.floor(s.length / 2);
      return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
    };
    console.log(
      `\nDelivery by \`mailsvc worker\` (its own process, its defaults${Object.keys(WORKER_ENV).length ? `, with ${JSON.stringify(WORKER_ENV)}` : ''}) against raw nodemailer (own process, pool ${BASELINE.pool}, ${BASELINE.inFlight} in flight): ${MESSAGES} login codes per round, DKIM rsa-sha256 (2048), the sink in its own process`,
    );
    console.log(
      `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL ${bench.pgVersion}; load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}${load ? '; another process kept one core busy throughout' : ''}\n`,
    );
    console.log(
      '| round | nodemailer msg/s, first→last | worker msg/s, first→last | ratio | nodemailer msg/s, start→drain | worker msg/s, start→drain | ratio | CPU ms/msg nodemailer / worker |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [i, r] of results.entries())
      console.log(
        `| ${i + 1} | ${fmt(r.baseline.atSink)} | ${fmt(r.worker.atSink)} | ${(r.worker.atSink / r.baseline.atSink).toFixed(2)} | ${fmt(r.baseline.startToDrain)} | ${fmt(r.worker.startToDrain)} | ${(r.worker.startToDrain / r.baseline.startToDrain).toFixed(2)} | ${r.baseline.cpuMs.toFixed(2)} / ${r.worker.cpuMs.toFixed(2)} |`,
      );
    const m = (pick: (r: (typeof results)[number]) => number) => median(results.map(pick));
    console.log(
      `| median | ${fmt(m((r) => r.baseline.atSink))} | ${fmt(m((r) => r.worker.atSink))} | **${m((r) => r.worker.atSink / r.baseline.atSink).toFixed(2)}** | ${fmt(m((r) => r.baseline.startToDrain))} | ${fmt(m((r) => r.worker.startToDrain))} | **${m((r) => r.worker.startToDrain / r.baseline.startToDrain).toFixed(2)}** | ${m((r) => r.baseline.cpuMs).toFixed(2)} / ${m((r) => r.worker.cpuMs).toFixed(2)} |`,
    );
    const q = (r: Round) => r.quarters.map((x) => fmt(x)).join(' / ');
    console.log(
      `(msg/s at the sink by quarter of each round's messages, nodemailer → worker: ${results.map((r, i) => `round ${i + 1} ${q(r.baseline)} → ${q(r.worker)}`).join('; ')})`,
    );
    console.log(
      `(ratios: median of the rounds' ratios; the worker's CPU counted after its start-up, which took ${fmt(m((r) => r.worker.startup!.ms))} ms and ${m((r) => r.worker.startup!.cpuSeconds).toFixed(2)} s of CPU, medians)`,
    );
    if (VARIANT_ENV)
      console.log(
        `\nVariant ${JSON.stringify(VARIANT_ENV)}, same rounds: worker msg/s first→last ${results.map((r) => fmt(r.variant!.atSink)).join(', ')}; ratio to the baseline, median ${m((r) => r.variant!.atSink / r.baseline.atSink).toFixed(2)} first→last, ${m((r) => r.variant!.startToDrain / r.baseline.startToDrain).toFixed(2)} start→drain (defaults: ${m((r) => r.worker.atSink / r.baseline.atSink).toFixed(2)}, ${m((r) => r.worker.startToDrain / r.baseline.startToDrain).toFixed(2)}); variant over defaults per round: ${results.map((r) => (r.variant!.atSink / r.worker.atSink).toFixed(2)).join(', ')}; CPU ms/msg ${m((r) => r.variant!.cpuMs).toFixed(2)} against ${m((r) => r.worker.cpuMs).toFixed(2)} (main thread ${m((r) => r.variant!.split!.mainThread).toFixed(3)} against ${m((r) => r.worker.split!.mainThread).toFixed(3)}); PostgreSQL ms/msg ${m((r) => r.variant!.split!.postgres).toFixed(3)} against ${m((r) => r.worker.split!.postgres).toFixed(3)}`,
      );
    if (sweep) {
      const each = sweepRounds.map(
        (s, i) =>
          `round ${i + 1} ${s.checked} checked (${s.verified} verified), ${fmt(s.perSecond)} domains/s, the sweep ${s.sweepSeconds === undefined ? 'unfinished' : `${s.sweepSeconds.toFixed(2)} s`} against the mail's ${s.drainSeconds.toFixed(2)} s`,
      );
      console.log(
        `Domain sweep in each DOMAIN_SWEEP round (${sweep.domains} domains of another tenant due at the worker's start, their records in a DNS server process on 127.0.0.1; what was checked while the mail drained, banner → every outcome recorded; a sweep that outlasted the mail counted over the mail's time): ${each.join('; ')}; median ${fmt(median(sweepRounds.map((s) => s.perSecond)))} domains/s`,
      );
    }
    const split = (k: keyof NonNullable<Round['split']>) => m((r) => r.worker.split![k]).toFixed(3);
    console.log(
      `\nCPU per message during the worker rounds (ms, medians): worker main thread ${split('mainThread')}, worker's other threads (RSA on libuv's pool, GC helpers) ${split('otherThreads')}, PostgreSQL backends ${split('postgres')}, SMTP sink ${split('sink')}`,
    );
    if (webhookCounts.length > 0)
      console.log(
        `Webhook requests the receiver got during each WEBHOOK_ENDPOINTS round (events of that round and earlier ones still due): ${webhookCounts.join(', ')}`,
      );
    const names = [...new Set(results.flatMap((r) => [...r.worker.threads!.keys()]))];
    console.log(
      `The worker's CPU by thread name (ms per message, medians): ${names
        .map((n) => `${n} ${m((r) => r.worker.threads!.get(n) ?? 0).toFixed(3)}`)
        .join(', ')}`,
    );
    const per = (n: number) => (n / dbCost.messages).toFixed(3);
    console.log(
      `\nDatabase per delivered message (${statements.source}): ${per(dbCost.transactions)} transactions, ${per(dbCost.claims)} claim_messages() calls (claims of ${(dbCost.messages / dbCost.claims).toFixed(1)}), ${per(dbCost.records)} record_attempts() calls (records of ${(dbCost.messages / dbCost.records).toFixed(1)})`,
    );
    console.log(
      `\nEvery round: the sink's count equal to the messages sent, no duplicate, every worker message recorded; ${verified} sampled messages parsed back (mailparser) and DKIM-verified (mailauth).`,
    );
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    console.log(
      `\nPick-up latency, accept → at the sink (${PICKUPS} single messages, an idle worker process): p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${latencies.at(-1)} ms`,
    );
    // (a receiver left by a throw exits with this process: it stops when its IPC channel closes)
    receiver?.child.kill();
    sweep?.close();
  } finally {
    load?.kill('SIGKILL');
    sink.child.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
    await bench.close();
  }
}

/**
 * The database's work: transactions of the bench's database (pg_stat_database), and calls of the
 * claim and record functions — from pg_stat_statements when the server loads it, else from
 * pg_stat_user_functions (track_functions switched on for the bench's database only).
 */
async function openStatementCounts(pool: import('pg').Pool, dbName: string) {
  let source = 'pg_stat_user_functions, track_functions = all';
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pool.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
    source = 'pg_stat_statements';
  } catch {
    await pool.query(`ALTER DATABASE ${dbName} SET track_functions = 'all'`);
  }
  return {
    source,
    async read() {
      // statistics are reported by each backend at its transaction's end, at most every 0.5-1 s
      await sleep(1100);
      await pool.query('SELECT pg_stat_clear_snapshot()');
      const tx = await pool.query(
        'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
      );
      const calls = async (fn: string) =>
        source === 'pg_stat_statements'
          ? Number(
              (
                await pool.query(
                  `SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                   WHERE d.datname = current_database() AND s.toplevel AND s.query LIKE $1`,
                  [`%FROM ${fn}(%`],
                )
              ).rows[0].n,
            )
          : Number(
              (
                await pool.query(
                  'SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_user_functions WHERE funcname = $1',
                  [fn],
                )
              ).rows[0].n,
            );
      return {
        transactions: Number(tx.rows[0].n),
        claims: await calls('claim_messages'),
        records: await calls('record_attempts'),
      };
    },
  };
}

await main();
