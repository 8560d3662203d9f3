// Delivered messages per second from the real worker (claim from PostgreSQL, re-check, render,
// MIME, DKIM, SMTP, record) to a local SMTP sink, as a ratio of raw nodemailer sending the same
// rendered messages to the same sink with the same pool, in-flight window and DKIM key, in the
// same run. Then the pick-up latency: accept → message at the sink, one message at a time, with
// the worker's poll at 60 s so only the queue signal (LISTEN/NOTIFY) can wake it.
// The sink runs in a child process (bench/smtp-sink.mjs) so it does not share an event loop.
// Every run is checked: the sink's count equals the messages sent (no loss, no duplicate), and a
// sample (every 250th message at the sink) is parsed back with mailparser and its DKIM signature
// verified with mailauth.
// Run: npx tsx bench/delivery.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_MESSAGES per round, default 5000; BENCH_IN_FLIGHT, default MAILSVC_WORKER_CONCURRENCY's)
import { type ChildProcess, fork } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTemplate, renderVersion, validateTemplateData } from '@mailsvc/templates';
import { simpleParser } from 'mailparser';
import { loadConfig } from '../packages/server/src/config.js';
import { SIGNED_HEADERS } from '../packages/server/src/delivery/dkim.js';
import { smtpTransport } from '../packages/server/src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../packages/server/src/delivery/worker.js';
import { checkDkim } from '../packages/server/src/dev/inbox/check-dkim.js';
import { openBenchTenant } from './bench-tenant.js';

// The nodemailer the server uses (the root node_modules may hold an older one for other packages).
const nodemailer = createRequire(new URL('../packages/server/package.json', import.meta.url))(
  'nodemailer',
) as typeof import('nodemailer');

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5000);
const defaults = loadConfig({ DATABASE_URL: BASE_URL }); // the defaults on PostgreSQL
const POOL = defaults.MAILSVC_SMTP_POOL_SIZE;
// The worker's messages in flight; the baseline gets as many concurrent sendMail calls.
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? defaults.MAILSVC_WORKER_CONCURRENCY);

const ROUNDS = 3;
const PICKUPS = 50;

interface SinkEvent {
  id: string;
  t: number;
  /** A sampled message, whole (base64). */
  raw?: string;
}

async function startSink(): Promise<{ port: number; child: ChildProcess; events: SinkEvent[] }> {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'smtp-sink.mjs'));
  const events: SinkEvent[] = [];
  const port = await new Promise<number>((resolve) =>
    child.on('message', (m: { port?: number; id?: string; t?: number }) => {
      if (m.port) resolve(m.port);
      else events.push(m as SinkEvent);
    }),
  );
  return { port, child, events };
}

async function until(check: () => boolean, ms = 120_000, progress?: () => string) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out (${progress?.() ?? ''})`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function main() {
  const sink = await startSink();
  const bench = await openBenchTenant(BASE_URL, 'bench');
  try {
    const { runtime, app, apiKey, domain } = bench;
    const keyRow = await runtime.deps.db
      .selectFrom('sending_domains')
      .select(['dkim_selector', 'dkim_private_key'])
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    const smtpUrl = `smtp://127.0.0.1:${sink.port}`;
    const body = (i: number) =>
      JSON.stringify({
        templateId: 'login-code',
        to: `user${i}@example.com`,
        data: { code: String(100000 + i) },
      });
    const accept = async (n: number) => {
      for (let i = 0; i < n; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, n - i) }, (_, j) =>
            app.inject({
              method: 'POST',
              url: '/v1/send',
              headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
              payload: body(i + j),
            }),
          ),
        );
      }
    };

    // the baseline's input: the same messages, rendered once beforehand
    const { version } = getTemplate('login-code');
    const rendered = Array.from({ length: MESSAGES }, (_, i) => {
      const checked = validateTemplateData(version, { code: String(100000 + i) });
      if (!checked.ok) throw new Error('bad fixture');
      return renderVersion(version, checked.data, {
        projectName: 'Bench App',
        environmentName: 'production',
      });
    });
    const privateKey = createPrivateKey(keyRow.dkim_private_key!);
    const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string;
    // the dev inbox's checker: mailauth with the selector's key answered from here, not DNS
    const findPublicKey = async (d: string, selector: string) =>
      d === domain && selector === keyRow.dkim_selector ? publicKeyPem : null;
    let verified = 0;
    /** The run's events at the sink: exactly one per message, and every sample parses and verifies. */
    async function check(label: string, start: number, idPrefix: string): Promise<void> {
      await new Promise((r) => setTimeout(r, 200)); // a duplicate would arrive within this
      const events = sink.events.slice(start);
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

    async function baseline(): Promise<number> {
      const transporter = nodemailer.createTransport({
        host: '127.0.0.1',
        port: sink.port,
        pool: true,
        maxConnections: POOL,
        maxMessages: 1000,
      });
      const start = sink.events.length;
      const t0 = performance.now();
      let next = 0;
      const lane = async () => {
        while (next < MESSAGES) {
          const i = next++;
          const r = rendered[i]!;
          await transporter.sendMail({
            from: { name: 'Bench App', address: `notifications@${domain}` },
            to: `user${i}@example.com`,
            subject: r.subject,
            html: r.html,
            text: r.text,
            messageId: `<base_${i}@${domain}>`,
            headers: { 'X-Mailsvc-Message-Id': `base_${i}` },
            envelope: { from: `bounces+base_${i}@${domain}`, to: `user${i}@example.com` },
            dkim: {
              domainName: domain,
              keySelector: keyRow.dkim_selector!,
              privateKey: privateKey as unknown as string,
              headerFieldNames: SIGNED_HEADERS.join(':'),
            },
          });
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      await until(() => sink.events.length - start >= MESSAGES);
      const s = (performance.now() - t0) / 1000;
      transporter.close();
      await check('baseline', start, 'base_');
      return MESSAGES / s;
    }

    async function worker(): Promise<number> {
      await accept(MESSAGES);
      const transport = smtpTransport({ url: smtpUrl, poolSize: POOL });
      const w = new DeliveryWorker(runtime.deps, transport, {
        concurrency: IN_FLIGHT,
        leaseMs: 300_000,
        pollMs: 60_000,
      });
      const start = sink.events.length;
      const t0 = performance.now();
      w.start();
      await until(
        () => sink.events.length - start >= MESSAGES,
        120_000,
        () => `${sink.events.length - start} at the sink`,
      );
      // every outcome recorded, not just handed to the sink
      await w.stop();
      const s = (performance.now() - t0) / 1000;
      await transport.close();
      const { rows } = await runtime.database.pool.query(
        "SELECT count(*)::int AS n FROM messages WHERE status IN ('queued', 'sending')",
      );
      if (rows[0].n !== 0) throw new Error(`${rows[0].n} messages not delivered`);
      await check('worker', start, 'msg_');
      return MESSAGES / s;
    }

    // One unmeasured round first: JIT warm-up of both paths, and table statistics for the queue
    // (the planner sees an empty messages table until autovacuum analyzes it).
    await baseline();
    await worker();
    await runtime.database.pool.query('ANALYZE messages');
    const results: { baseline: number; worker: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) results.push({ baseline: await baseline(), worker: await worker() });

    // pick-up latency through LISTEN/NOTIFY
    const transport = smtpTransport({ url: smtpUrl, poolSize: POOL });
    const live = new DeliveryWorker(runtime.deps, transport, {
      concurrency: IN_FLIGHT,
      leaseMs: 300_000,
      pollMs: 60_000,
    });
    live.start();
    await new Promise((r) => setTimeout(r, 500));
    const latencies: number[] = [];
    for (let i = 0; i < PICKUPS; i++) {
      const t0 = Date.now();
      const res = await app.inject({
        method: 'POST',
        url: '/v1/send',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        payload: body(900000 + i),
      });
      const id = res.json().messageId as string;
      await until(() => sink.events.some((e) => e.id === id), 10_000);
      latencies.push(sink.events.find((e) => e.id === id)!.t - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    await live.stop();
    await transport.close();
    latencies.sort((a, b) => a - b);

    const cpu = os.cpus()[0]?.model ?? 'unknown';
    const { pgVersion } = bench;
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    console.log(
      `\nDelivery to a local SMTP sink: ${MESSAGES} login-code messages per run, DKIM rsa-sha256 (2048), pool ${POOL}, ${IN_FLIGHT} in flight`,
    );
    console.log(`node ${process.version}, ${os.cpus().length} × ${cpu}, PostgreSQL ${pgVersion}\n`);
    console.log('| round | raw nodemailer msg/s (baseline) | mailsvc worker msg/s | ratio |');
    console.log('|---|---|---|---|');
    for (const [i, r] of results.entries())
      console.log(
        `| ${i + 1} | ${fmt(r.baseline)} | ${fmt(r.worker)} | ${(r.worker / r.baseline).toFixed(2)} |`,
      );
    // Rounds alternate baseline and worker; the median ratio of the rounds is the figure.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const best = {
      baseline: median(results.map((r) => r.baseline)),
      worker: median(results.map((r) => r.worker)),
    };
    console.log(
      `| median of ${ROUNDS} | ${fmt(best.baseline)} | ${fmt(best.worker)} | ${(best.worker / best.baseline).toFixed(2)} |`,
    );
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    console.log(
      `\nEvery run: the sink's count equal to the messages sent, no duplicate; ${verified} sampled messages parsed back (mailparser) and DKIM-verified (mailauth).`,
    );
    console.log(
      `\nPick-up latency, accept → at the sink (${PICKUPS} single messages, poll 60 s): p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${latencies.at(-1)} ms`,
    );
  } finally {
    sink.child.kill();
    await bench.close();
  }
}

await main();
