// The domain checker as an operator runs it: `mailsvc worker`, started by its CLI as its own process
// with its defaults (MAILSVC_DOMAIN_CHECK_CONCURRENCY 16 unless set), sweeping N sending domains
// whose check is due (pending, next_check_at = now), each with every record published correctly
// (DKIM TXT, the return path's MX and SPF, DMARC) in a DNS server in its own process
// (bench/dns-server.mjs: the tests' dns2 server, packages/testkit/dns-server.ts, on 127.0.0.1),
// which the worker asks through MAILSVC_DNS_SERVERS. The domains belong to a tenant of their own,
// one per environment of one project (a scope has one domain), with one shared RSA-2048 key pair:
// making a key per domain would take minutes (50-200 ms each), and the checker reads each domain's
// key from its row either way. Each round starts a new worker process on the due domains and is
// timed from its "is running" banner until every domain has last_checked_at set (the latest of
// them); one unmeasured round first. Every round is checked: all N verified (DKIM and the return
// path), none failed or unknown. After each round the domains are deleted, with the audit and
// webhook events their checks left, so the next starts equal.
// Reported per round and as medians: domains/s, the worker's CPU per domain after its start-up, the
// DNS server's CPU and the queries it answered per domain. Then, so one command gives both figures
// of the issue ("the worker's delivery rate during the sweep, ≥ 0.9× of without, same run"), it runs
// bench/delivery.ts with BENCH_VARIANT_ENV='{"DOMAIN_SWEEP":"<N>"}' as a child and prints its output:
// each of its rounds adds a worker round that starts on N due domains beside the mail, reported as
// variant over defaults per round, with the domains checked while the mail drained.
// Run: npx tsx bench/domains.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_DOMAINS per round, default 1000; BENCH_ROUNDS sweep rounds, default 3; then bench/delivery.ts
// with BENCH_MESSAGES, default 4000, and BENCH_DELIVERY_ROUNDS rounds, default 4 (0: not run))
// This module also gives bench/delivery.ts its DOMAIN_SWEEP rounds (openDomainSweep).
import { fork, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SendingDomainRow } from '../packages/server/src/db/repositories/sending-domains.js';
import { generateDkimKeyPairAsync } from '../packages/server/src/delivery/dkim.js';
import { adminCommands } from '../packages/server/src/domain/admin/index.js';
import { recordSettings, recordsToPublish } from '../packages/server/src/domains/domain-records.js';
import { newId } from '../packages/server/src/ids.js';
import type { Runtime } from '../packages/server/src/runtime.js';
import { openBenchTenant } from './bench-tenant.js';
import { cpuSeconds, exited } from './process-cpu.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the sweep's domains live, and the operator's side of their records (what the worker is told). */
const ZONE = 'sweep.bench.test';
const SETTINGS = {
  MAILSVC_INBOUND_MX_HOST: `inbound.${ZONE}`,
  MAILSVC_RETURN_PATH_SPF: `include:_spf.${ZONE}`,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SweepProgress {
  /** last_checked_at set (at or before `until`, when given). */
  checked: number;
  /** Of those, the domain and its return path verified. */
  verified: number;
  /** The latest last_checked_at (of those). */
  lastCheckedAt: Date | null;
}

export interface DomainSweep {
  readonly domains: number;
  /** The worker's settings for the sweep: the DNS server, and the record settings published. */
  readonly env: Record<string, string>;
  /** The DNS server's process. */
  readonly dnsPid: number;
  /** The domains inserted, pending and due now, their records published. */
  seed(): Promise<void>;
  progress(until?: Date): Promise<SweepProgress>;
  /** Up to `limit` domains not verified, with their records' states, for an error. */
  unverified(limit?: number): Promise<string[]>;
  /** Queries the DNS server has answered so far. */
  queries(): Promise<number>;
  /** The domains deleted, with the audit and webhook events their checks left. */
  clear(): Promise<void>;
  close(): void;
}

/**
 * A tenant with `n` environments, each to get a sending domain at every seed(), and the DNS
 * server process that publishes their records.
 */
export async function openDomainSweep(runtime: Runtime, n: number): Promise<DomainSweep> {
  const { db } = runtime.deps;
  const run = (command: string, input: Record<string, unknown>) =>
    // biome-ignore lint/suspicious/noExplicitAny: admin results are read loosely here
    adminCommands[command]!.run(runtime.deps, input as never, 'bench') as Promise<any>;
  const plan = await db.selectFrom('plans').select('id').executeTakeFirstOrThrow();
  const { tenant } = await run('tenants.create', { name: 'Sweep', plan: plan.id });
  const { project } = await run('projects.create', { tenant: tenant.id, name: 'Sweep' });
  const created = new Date();
  const environments = Array.from({ length: n }, (_, i) => ({
    id: newId('env', created.getTime()),
    tenant_id: tenant.id as string,
    project_id: project.id as string,
    name: `sweep-${i}`,
    created_at: created,
    updated_at: created,
  }));
  for (let i = 0; i < n; i += 1000)
    await db
      .insertInto('environments')
      .values(environments.slice(i, i + 1000))
      .execute();
  const key = await generateDkimKeyPairAsync(created);
  const settings = recordSettings({
    ...SETTINGS,
    MAILSVC_BOUNCE_DOMAIN: runtime.config.MAILSVC_BOUNCE_DOMAIN,
  });

  const child = fork(path.join(ROOT, 'bench/dns-server.mjs'), { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bench/dns-server.mjs exited ${code}`)));
  });
  let seq = 0;
  const ask = (m: { set?: [string, string, unknown][] }) =>
    new Promise<number>((resolve) => {
      const id = ++seq;
      const onMessage = (r: { id?: number; queries?: { udp: number; tcp: number } }) => {
        if (r.id !== id) return;
        child.off('message', onMessage);
        resolve(r.queries!.udp + r.queries!.tcp);
      };
      child.on('message', onMessage);
      child.send({ id, ...m });
    });
  // what the SPF mechanism includes: the checker fetches it to count the record's lookups
  await ask({ set: [[`_spf.${ZONE}`, 'TXT', ['v=spf1 ip4:127.0.0.1 -all']]] });

  const tenantDomains = () => db.selectFrom('sending_domains').where('tenant_id', '=', tenant.id);
  return {
    domains: n,
    env: { MAILSVC_DNS_SERVERS: `127.0.0.1:${port}`, ...SETTINGS },
    dnsPid: child.pid!,
    async seed() {
      const now = new Date();
      const rows: SendingDomainRow[] = [];
      for (let i = 0; i < n; i += 1000) {
        const values = environments.slice(i, i + 1000).map((e, j) => ({
          id: newId('dom', now.getTime()),
          domain: `d${i + j}.${ZONE}`,
          tenant_id: tenant.id as string,
          project_id: project.id as string,
          environment_id: e.id,
          scope: 'environment' as const,
          status: 'pending' as const,
          status_since: now,
          dkim_selector: key.selector,
          dkim_private_key: key.privateKeyPem,
          dkim_public_key: key.publicKeyPem,
          dkim_created_at: now,
          next_check_at: now,
          created_at: now,
          updated_at: now,
        }));
        rows.push(...(await db.insertInto('sending_domains').values(values).returningAll().execute()));
      }
      // each name and type once: the records a tenant would have published from GET /v1/domains/get
      const byName = new Map<string, [string, string, unknown[]]>();
      for (const row of rows)
        for (const r of recordsToPublish(row, settings, now)) {
          const k = `${r.host} ${r.type}`;
          if (!byName.has(k)) byName.set(k, [r.host, r.type, []]);
          byName
            .get(k)![2]
            .push(r.type === 'MX' ? { exchange: r.value, priority: r.priority } : (r.txtStrings ?? r.value));
        }
      const records = [...byName.values()];
      for (let i = 0; i < records.length; i += 2000) await ask({ set: records.slice(i, i + 2000) });
      await sql('ANALYZE sending_domains');
    },
    async progress(until) {
      let q = tenantDomains().where('last_checked_at', 'is not', null);
      if (until) q = q.where('last_checked_at', '<=', until);
      const row = await q
        .select((eb) => [
          eb.fn.countAll<number>().as('checked'),
          eb.fn
            .countAll<number>()
            .filterWhere((w) =>
              w.and([w('status', '=', 'verified'), w('return_path_status', '=', 'verified')]),
            )
            .as('verified'),
          eb.fn.max('last_checked_at').as('last'),
        ])
        .executeTakeFirstOrThrow();
      return {
        checked: Number(row.checked),
        verified: Number(row.verified),
        lastCheckedAt: row.last ? new Date(row.last) : null,
      };
    },
    async unverified(limit = 3) {
      const rows = await tenantDomains()
        .select(['domain', 'status', 'return_path_status', 'last_check'])
        .where((w) => w.or([w('status', '!=', 'verified'), w('return_path_status', '!=', 'verified')]))
        .limit(limit)
        .execute();
      return rows.map((r) => {
        const records = (
          (r.last_check as { records?: { purpose: string; state: string }[] } | null)?.records ?? []
        )
          .map((c) => `${c.purpose} ${c.state}`)
          .join(', ');
        return `${r.domain}: ${r.status}, return path ${r.return_path_status} (${records || 'not checked'})`;
      });
    },
    queries: () => ask({}),
    async clear() {
      await db.deleteFrom('sending_domains').where('tenant_id', '=', tenant.id).execute();
      await db.deleteFrom('audit_events').where('tenant_id', '=', tenant.id).execute();
      // a delivery's event is not held by a foreign key (0025): the deliveries go first
      await db
        .deleteFrom('webhook_deliveries')
        .where(
          'event_id',
          'in',
          db.selectFrom('webhook_events').select('id').where('tenant_id', '=', tenant.id),
        )
        .execute();
      await db.deleteFrom('webhook_events').where('tenant_id', '=', tenant.id).execute();
      await sql('ANALYZE sending_domains');
    },
    close() {
      child.kill();
    },
  };

  async function sql(text: string) {
    await runtime.database.pool.query(text);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface SweepRound {
  perSecond: number;
  seconds: number;
  /** ms per domain: the worker's CPU after its start-up, and the DNS server's. */
  workerCpuMs: number;
  dnsCpuMs: number;
  queriesPerDomain: number;
}

async function main() {
  const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 1000);
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
  const DELIVERY_ROUNDS = process.env.BENCH_DELIVERY_ROUNDS ?? '4';
  const bench = await openBenchTenant(BASE_URL, 'domains');
  let sweep: DomainSweep | undefined;
  const rounds: SweepRound[] = [];
  try {
    sweep = await openDomainSweep(bench.runtime, DOMAINS);
    const s = sweep;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: bench.runtime.config.DATABASE_URL!,
      MAILSVC_DATA_DIR: bench.runtime.config.dataDir,
      ...s.env,
    };
    async function round(): Promise<SweepRound> {
      await s.seed();
      const queries0 = await s.queries();
      const dnsCpu0 = cpuSeconds(s.dnsPid);
      const child = spawn(process.execPath, [path.join(ROOT, 'packages/server/bin/mailsvc.js'), 'worker'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let ready = { t: 0, cpu: 0 };
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        if (ready.t !== 0) return;
        out += d;
        if (out.includes('mailsvc worker is running')) ready = { t: Date.now(), cpu: cpuSeconds(child.pid!) };
      });
      let errors = '';
      child.stderr!.on('data', (d) => (errors += d));
      const deadline = Date.now() + 180_000;
      let p: SweepProgress;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`mailsvc worker exited ${child.exitCode}: ${errors}`);
        p = await s.progress();
        if (p.checked >= DOMAINS && ready.t !== 0) break;
        if (Date.now() > deadline) throw new Error(`timed out: ${p.checked} of ${DOMAINS} domains checked`);
        await sleep(50);
      }
      const cpu = cpuSeconds(child.pid!);
      const dnsCpu = cpuSeconds(s.dnsPid) - dnsCpu0;
      child.kill('SIGTERM');
      if ((await exited(child)) !== 0) throw new Error(`mailsvc worker did not stop cleanly: ${errors}`);
      if (p.verified !== DOMAINS)
        throw new Error(
          `${DOMAINS - p.verified} of ${DOMAINS} domains not verified: ${(await s.unverified()).join('; ')}`,
        );
      const queries = (await s.queries()) - queries0;
      await s.clear();
      const seconds = (p.lastCheckedAt!.getTime() - ready.t) / 1000;
      return {
        perSecond: DOMAINS / seconds,
        seconds,
        workerCpuMs: ((cpu - ready.cpu) * 1000) / DOMAINS,
        dnsCpuMs: (dnsCpu * 1000) / DOMAINS,
        queriesPerDomain: queries / DOMAINS,
      };
    }

    await round(); // unmeasured: the database's caches, the CLI's bundle
    for (let r = 0; r < ROUNDS; r++) {
      rounds.push(await round());
      console.log(`round ${r + 1}: ${Math.round(rounds[r]!.perSecond)} domains/s`);
    }
  } finally {
    sweep?.close();
    await bench.close();
  }

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const m = (pick: (r: SweepRound) => number) => median(rounds.map(pick));
  const sweepLine = `Domain sweep without mail: median ${fmt(m((r) => r.perSecond))} domains/s (${DOMAINS} due domains, ${ROUNDS} rounds: ${rounds.map((r) => fmt(r.perSecond)).join(', ')})`;
  console.log(
    `\nDomain checks by \`mailsvc worker\` (its own process, MAILSVC_DOMAIN_CHECK_CONCURRENCY ${process.env.MAILSVC_DOMAIN_CHECK_CONCURRENCY ?? '16, the default'}): ${DOMAINS} due domains per round, every record published correctly in a DNS server in its own process (dns2 on 127.0.0.1), one shared RSA-2048 key`,
  );
  console.log(
    `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL ${bench.pgVersion}; load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log(
    '| round | domains/s, banner → last check | seconds | worker CPU ms/domain | DNS server CPU ms/domain | DNS queries/domain |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [i, r] of rounds.entries())
    console.log(
      `| ${i + 1} | ${fmt(r.perSecond)} | ${r.seconds.toFixed(2)} | ${r.workerCpuMs.toFixed(2)} | ${r.dnsCpuMs.toFixed(2)} | ${r.queriesPerDomain.toFixed(1)} |`,
    );
  console.log(
    `| median | **${fmt(m((r) => r.perSecond))}** | ${m((r) => r.seconds).toFixed(2)} | ${m((r) => r.workerCpuMs).toFixed(2)} | ${m((r) => r.dnsCpuMs).toFixed(2)} | ${m((r) => r.queriesPerDomain).toFixed(1)} |`,
  );
  console.log(
    `\nEvery round: all ${DOMAINS} domains checked and verified (DKIM, the return path's MX and SPF), none failed or unknown.`,
  );
  if (DELIVERY_ROUNDS === '0') return;

  // The delivery rate during a sweep: bench/delivery.ts with its DOMAIN_SWEEP variant.
  console.log(`\n== bench/delivery.ts, BENCH_VARIANT_ENV={"DOMAIN_SWEEP":"${DOMAINS}"} ==`);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/delivery.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_ROUNDS: DELIVERY_ROUNDS,
      BENCH_VARIANT_ENV: JSON.stringify({ DOMAIN_SWEEP: String(DOMAINS) }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
    process.stdout.write(d);
  });
  if ((await exited(child)) !== 0) throw new Error('bench/delivery.ts failed');
  const lines = out.split('\n').filter((l) => l.startsWith('Variant ') || l.startsWith('Domain sweep '));
  console.log(`\n== Both figures ==\n${sweepLine}\n${lines.join('\n')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
