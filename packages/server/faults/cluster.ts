// The service as it runs in production, on one machine: a fresh PostgreSQL database, `mailsvc api`
// and two `mailsvc worker` processes (spawned like any deployment would, each logging to its own
// file), the switchable relay, and the PostgreSQL server itself, which the suite may stop.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@mailsvc/testkit/free-port';
import pg from 'pg';
import { type Relay, startRelay } from './relay.js';

const run = promisify(execFile);
const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mailsvc.js');

export const WORKER_CONCURRENCY = 8;
export const LEASE_MS = 5000;
/** How long the relay takes before its 250: keeps a few messages in flight in every worker. */
export const RELAY_LATENCY_MS = 30;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(what: string, check: () => boolean | Promise<boolean>, ms: number, stepMs = 50) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

export interface MailsvcProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  isAlive(): boolean;
}

/**
 * The PostgreSQL server of TEST_DATABASE_URL, stopped and started with pg_ctlcluster. Other tests
 * share it: whatever happens, a stopped server is started again — by `start` in the scenario's
 * finally block, by `ensureStarted` in afterAll, on process exit or SIGINT/SIGTERM while it is
 * stopped, and by a detached watchdog that starts it if it is still down 30 s after the stop (it
 * outlives this process, should the test runner kill it).
 */
export class PostgresServer {
  isStopped = false;
  private watchdog: ChildProcess | undefined;
  private readonly startNow = () => {
    if (this.isStopped) spawnSync('pg_ctlcluster', this.ctl('start'), { stdio: 'ignore' });
  };
  private readonly startAndExit = (signal: NodeJS.Signals) => {
    this.startNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    process.on('exit', this.startNow);
  }

  /** The cluster version: the single directory in /etc/postgresql. */
  get version(): string {
    const versions = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : [];
    if (versions.length !== 1)
      throw new Error(
        `expected one PostgreSQL version in /etc/postgresql, found ${versions.join(', ') || 'none'}`,
      );
    return versions[0]!;
  }

  private ctl(action: 'start' | 'stop'): string[] {
    return [
      '--skip-systemctl-redirect',
      this.version,
      'main',
      action,
      ...(action === 'stop' ? ['-m', 'immediate'] : []),
    ];
  }

  async stop(): Promise<void> {
    const start = `pg_ctlcluster ${this.ctl('start').join(' ')}`;
    this.watchdog = spawn(
      'sh',
      ['-c', `sleep 30; pg_isready -q -h ${this.host} -p ${this.port} || ${start}`],
      { detached: true, stdio: 'ignore' },
    );
    this.watchdog.unref();
    this.isStopped = true;
    process.once('SIGINT', this.startAndExit);
    process.once('SIGTERM', this.startAndExit);
    await run('pg_ctlcluster', this.ctl('stop'));
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    await run('pg_ctlcluster', this.ctl('start')).catch(async (err) => {
      if (!(await this.isReady())) throw err;
    });
    await until('PostgreSQL to accept connections (pg_isready)', () => this.isReady(), 60_000, 100);
    this.isStopped = false;
    process.off('SIGINT', this.startAndExit);
    process.off('SIGTERM', this.startAndExit);
    if (this.watchdog?.pid && this.watchdog.exitCode === null) {
      try {
        process.kill(-this.watchdog.pid, 'SIGKILL'); // its process group: the shell and its sleep
      } catch {}
    }
    this.watchdog = undefined;
  }

  async ensureStarted(): Promise<void> {
    if (this.isStopped || !(await this.isReady())) await this.start();
  }

  async isReady(): Promise<boolean> {
    return run('pg_isready', ['-q', '-h', this.host, '-p', String(this.port)]).then(
      () => true,
      () => false,
    );
  }
}

export interface Cluster {
  databaseUrl: string;
  /** The test's own connections to the database (checks only; never used while it is stopped). */
  db: pg.Pool;
  apiPort: number;
  apiKey: string;
  relay: Relay;
  postgres: PostgresServer;
  api: MailsvcProcess;
  workers: MailsvcProcess[];
  logDir: string;
  startApi(): Promise<MailsvcProcess>;
  startWorker(): Promise<MailsvcProcess>;
  /** kill -9, and waits for the process to be gone. */
  kill9(p: MailsvcProcess): Promise<void>;
  /** Processes that exited without being killed by the suite: each is a crash. */
  unexpectedExits(): string[];
  isReady(): Promise<boolean>;
  close(opts: { keepLogs: boolean }): Promise<void>;
}

export interface ClusterOptions {
  /** Settings added to every process's environment (a scenario's own, e.g. the webhook runner's). */
  env?: Record<string, string>;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const postgres = new PostgresServer(base.hostname, Number(base.port || 5432));
  await postgres.ensureStarted();

  const name = `mailsvc_faults_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // Idle connections of the test itself are dropped when the server stops: not an error here.
  db.on('error', () => {});
  db.on('connect', (c) => c.on('error', () => {}));

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-faults-'));
  const logDir = path.join(dir, 'logs');
  fs.mkdirSync(logDir);
  const relay = await startRelay({ latencyMs: RELAY_LATENCY_MS });
  const apiPort = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(apiPort),
    MAILSVC_DATA_DIR: path.join(dir, 'data'),
    MAILSVC_INBOUND_PORT: '0',
    MAILSVC_SMTP_URL: relay.url,
    MAILSVC_PUBLIC_URL: 'https://mail.example.test',
    MAILSVC_RETRY_DELAYS: '1s,2s',
    MAILSVC_WORKER_LEASE_MS: String(LEASE_MS),
    MAILSVC_WORKER_POLL_MS: '200',
    MAILSVC_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    MAILSVC_SMTP_POOL_SIZE: String(WORKER_CONCURRENCY),
    LOG_LEVEL: 'warn',
    ...opts.env,
  };

  const processes: MailsvcProcess[] = [];
  const killed = new Set<MailsvcProcess>();
  let isClosing = false;
  let apiCount = 0;
  let workerCount = 0;

  function spawnMailsvc(name: string, args: string[], extraEnv: Record<string, string> = {}) {
    const logFile = path.join(logDir, `${name}.log`);
    const fd = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', fd, fd],
    });
    fs.closeSync(fd);
    const p: MailsvcProcess = {
      name,
      pid: child.pid!,
      child,
      logFile,
      isAlive: () => child.exitCode === null && child.signalCode === null,
    };
    processes.push(p);
    return p;
  }

  /** A process that exits while it is awaited stops the wait at once, naming its log. */
  const alive = (p: MailsvcProcess) => {
    if (p.isAlive()) return true;
    throw new Error(`${p.name} exited with ${p.child.exitCode ?? p.child.signalCode}: see ${p.logFile}`);
  };

  const exited = (p: MailsvcProcess) =>
    p.isAlive() ? new Promise<void>((r) => p.child.once('exit', () => r())) : Promise.resolve();

  const readyz = () =>
    fetch(`http://127.0.0.1:${apiPort}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );

  async function startApi(): Promise<MailsvcProcess> {
    const p = spawnMailsvc(`api-${++apiCount}`, ['api']);
    await until(`${p.name} to answer /readyz (log: ${p.logFile})`, async () => alive(p) && readyz(), 60_000);
    cluster.api = p;
    return p;
  }

  async function startWorker(): Promise<MailsvcProcess> {
    // Its own bounce domain names the worker in the envelope of every message it sends.
    const name = `w${++workerCount}`;
    const p = spawnMailsvc(name, ['worker'], { MAILSVC_BOUNCE_DOMAIN: `${name}.faults.test` });
    await until(
      `${name} to start (log: ${p.logFile})`,
      () => alive(p) && fs.readFileSync(p.logFile, 'utf8').includes('mailsvc worker is running'),
      60_000,
    );
    cluster.workers.push(p);
    return p;
  }

  async function cli(args: string[]): Promise<string> {
    const { stdout } = await run(process.execPath, [BIN, ...args], { env });
    return stdout;
  }

  const cluster: Cluster = {
    databaseUrl,
    db,
    apiPort,
    apiKey: '',
    relay,
    postgres,
    api: undefined as unknown as MailsvcProcess,
    workers: [],
    logDir,
    startApi,
    startWorker,
    async kill9(p) {
      killed.add(p);
      p.child.kill('SIGKILL');
      await exited(p);
      cluster.workers = cluster.workers.filter((w) => w !== p);
    },
    unexpectedExits: () =>
      processes
        .filter((p) => !p.isAlive() && !killed.has(p) && !isClosing)
        .map(
          (p) =>
            `${p.name} (pid ${p.pid}) exited: ${p.child.exitCode ?? p.child.signalCode} (log: ${p.logFile})`,
        ),
    isReady: readyz,
    async close({ keepLogs }) {
      isClosing = true;
      await postgres.ensureStarted();
      for (const p of processes) if (p.isAlive()) p.child.kill('SIGTERM');
      await Promise.race([Promise.all(processes.map(exited)), sleep(10_000)]);
      for (const p of processes) if (p.isAlive()) p.child.kill('SIGKILL');
      await Promise.all(processes.map(exited));
      await relay.close();
      await db.end();
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      if (keepLogs) fs.rmSync(path.join(dir, 'data'), { recursive: true, force: true });
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    // Every command migrates at start-up under an advisory lock: start them all at once.
    const [bootstrap] = await Promise.all([
      cli(['admin', 'bootstrap', '--json']),
      startApi(),
      startWorker(),
      startWorker(),
    ]);
    const scope = JSON.parse(bootstrap) as { apiKey: string };
    // The demo plan allows 3,000 emails a month: the suite sends more.
    // Room for the offered load and the clients' bursts of retries after a fault; the limiter
    // still runs on every request (and a 429 is retried after Retry-After, like any client).
    await cli([
      'admin',
      'plans',
      'update',
      '--id',
      'demo',
      '--monthly-limit',
      '100000000',
      '--rate-limit-per-second',
      '1000',
      '--rate-limit-burst',
      '5000',
    ]);
    cluster.apiKey = scope.apiKey;
  } catch (err) {
    await cluster.close({ keepLogs: true }).catch(() => {});
    throw err;
  }
  return cluster;
}
