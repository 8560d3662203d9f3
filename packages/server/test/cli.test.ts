// The `mailsvc` command as a user runs it: separate processes, real data directories.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { absentDir, BIN, baseEnv, expectOneLine, run } from '@mailsvc/testkit/cli-runner';
import { backend } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'start'], { env: { ...env, PORT: '0' } });
    let out = '';
    // A first start makes the embedded database: 20–76 s was seen on a busy 2-core machine.
    const timer = setTimeout(() => reject(new Error(`start did not print its banner:\n${out}`)), 150_000);
    const onData = (d: Buffer) => {
      out += d;
      if (out.includes('Press Ctrl+C')) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`start exited with ${code}:\n${out}`));
    });
  });
}

let dataDir: string;
/** On PGlite, the data directory held by a running `mailsvc start`. */
let heldDir: string | undefined;

let server: Awaited<ReturnType<typeof startServer>> | undefined;

/** The pid of the running server: the child that the spawned `mailsvc start` runs itself as. */
function serverPid(): number {
  const parent = String(server!.child.pid);
  const children = fs.readdirSync('/proc').filter((d) => {
    try {
      return (
        /^\d+$/.test(d) && fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === parent
      );
    } catch {
      return false;
    }
  });
  expect(children).toHaveLength(1);
  return Number(children[0]);
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-cli-'));
  if (backend === 'pglite') {
    heldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-start-'));
    server = await startServer(baseEnv(heldDir));
  }
});
afterAll(async () => {
  if (server) {
    // As a service manager stops a process group (systemd's KillMode=control-group) started
    // through npx: SIGTERM to the spawned process and to the server it runs itself as, at once,
    // and a second copy to the spawned process a moment later (npx passing on its own). The
    // server gets it twice or more and still stops cleanly, and the spawned process is not killed
    // by the second copy: exit code 0, the lock file gone.
    const exited = new Promise<number | null>((r) => server!.child.once('exit', r));
    const pid = serverPid();
    server.child.kill('SIGTERM');
    process.kill(pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(heldDir!, 'mailsvc.lock'))).toBe(false);
    fs.rmSync(heldDir!, { recursive: true, force: true });
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.runIf(backend === 'pglite')('mailsvc start', () => {
  it('says it is making the embedded database on a first start, before the banner', () => {
    const out = server!.output();
    const making = out.indexOf(`mailsvc: making the embedded database in ${heldDir}/pgdata`);
    expect(making, out).toBeGreaterThanOrEqual(0);
    expect(making).toBeLessThan(out.indexOf('mailsvc start is running'));
  });

  it("runs itself with V8's memory settings when started without them (npx, the bin, a service manager)", () => {
    // The process spawned here has no --max-semi-space-size: the server is its child, which has.
    const args = fs.readFileSync(`/proc/${serverPid()}/cmdline`, 'utf8').split('\0');
    expect(args).toContain('--max-semi-space-size=4');
    expect(args).toContain('start');
  });

  it('also runs the inbound SMTP server for bounces and names it in the banner', async () => {
    const m = /Inbound +smtp:\/\/([\d.]+):(\d+)/.exec(server!.output());
    expect(m, server!.output()).not.toBeNull();
    const greeting = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(m![2]), m![1]!);
      socket.once('data', (d) => {
        socket.end('QUIT\r\n');
        resolve(d.toString());
      });
      socket.once('error', reject);
    });
    expect(greeting).toMatch(/^220 .*mailsvc inbound/);
  });
});

describe('mailsvc admin', () => {
  it('bootstrap --json prints one JSON object with a working key', async () => {
    const r = await run(['admin', 'bootstrap', '--json'], baseEnv(dataDir));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['apiKey', 'environmentId', 'projectId', 'tenantId']);
    expect(out.apiKey).toMatch(/^msk_/);
    // the demo scope is ensured, not duplicated
    const again = JSON.parse((await run(['admin', 'bootstrap', '--json'], baseEnv(dataDir))).stdout);
    expect(again.tenantId).toBe(out.tenantId);
    expect(again.apiKey).not.toBe(out.apiKey);
  });
});

describe.runIf(backend === 'postgres')('mailsvc on PostgreSQL', () => {
  it('refuses a database that does not exist', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = '/mailsvc_no_such_database';
    const r = await run(['api'], { ...baseEnv(absentDir()), PORT: '0', DATABASE_URL: url.toString() });
    expectOneLine(r, 'database "mailsvc_no_such_database" does not exist');
  });
});

describe.runIf(backend === 'pglite')('embedded database held by mailsvc start', () => {
  const dir = () => heldDir!;

  it('prints a dev key and a curl example that works', async () => {
    const out = server!.output();
    const curl = /curl -s (\S+) -H 'Authorization: Bearer (msk_\S+)'/.exec(out);
    expect(curl).not.toBeNull();
    const res = await fetch(curl![1]!, { headers: { authorization: `Bearer ${curl![2]}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.ok).toBe(true);
    expect(Object.keys(body.quota).sort()).toEqual(
      [
        'accessStatus',
        'environment',
        'environmentId',
        'monthly',
        'period',
        'planId',
        'projectId',
        'sendingStatus',
        'tenantId',
      ].sort(),
    );
    expect(fs.statSync(path.join(dir(), 'admin-token')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir(), 'dev-api-key')).mode & 0o777).toBe(0o600);
  });

  it('refuses a second process on the same data directory at once, with a clear message', async () => {
    const r = await run(['migrate'], baseEnv(dir()));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is in use by another mailsvc process');
    expect(r.stderr).toContain(`pid ${serverPid()}`);
  });

  it('refuses mailsvc api on the embedded database, where no worker could deliver what it accepts', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-api-'));
    const r = await run(['api'], baseEnv(empty));
    fs.rmSync(empty, { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('needs DATABASE_URL');
  });

  it('sends admin commands from a second terminal to the running server', async () => {
    const r = await run(['admin', 'bootstrap', '--json'], baseEnv(dir()));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { apiKey } = JSON.parse(r.stdout);
    const base = /API\s+(\S+)/.exec(server!.output())![1];
    const res = await fetch(`${base}/v1/quota`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
  });
});

// The exit codes are the CLI's, whatever the backend: checked once, on the PGlite pass.
describe.runIf(backend === 'pglite')('mailsvc admin exit codes and refusals', () => {
  const env = () => baseEnv(heldDir ?? dataDir);
  const unknownId = (prefix: string) => `${prefix}_${'0'.repeat(26)}`;

  it('exits 2 for input the schema or the use-case refuses and 1 for an unknown record or a duplicate', async () => {
    const planId = `exit-${Date.now()}`;
    const plan = [
      'admin',
      'plans',
      'create',
      '--id',
      planId,
      '--monthly-limit',
      '1',
      '--overage-allowed',
      'true',
    ];
    expect((await run(plan, env())).code).toBe(0);
    for (const [args, code] of [
      [['admin', 'domains', 'add', '--domain', 'not a domain', '--tenant', unknownId('ten')], 2],
      [['admin', 'plans', 'update', '--id', planId, '--rate-limit-per-second', '-1'], 2],
      [
        [
          'admin',
          'plans',
          'update',
          '--id',
          planId,
          '--rate-limit-per-second',
          '500',
          '--rate-limit-burst',
          '10',
        ],
        2,
      ],
      [['admin', 'tenants', 'update', unknownId('ten'), '--name', 'x'], 1],
      [plan, 1],
    ] as const) {
      const r = await run([...args], env());
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });

  it('states a domains add refusal once, in terms of its arguments', async () => {
    const none = await run(['admin', 'domains', 'add', '--domain', 'mail.example.com'], env());
    expect(none.code).toBe(2);
    expect(none.stderr.match(/exactly one/gi), none.stderr).toHaveLength(1);
    const bad = await run(
      ['admin', 'domains', 'add', '--domain', 'not a domain', '--tenant', unknownId('ten')],
      env(),
    );
    expect(bad.stderr.trim()).toBe('mailsvc admin: --domain: must be a domain such as mail.example.com');
  });
});

describe('mailsvc admin, whole set-up', () => {
  it('runs a whole tenant set-up from the command line (forwarded to the running server on PGlite)', async () => {
    const env = baseEnv(heldDir ?? dataDir);
    const json = async (args: string[]) => {
      const r = await run([...args, '--json'], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    const planId = `cli-${Date.now()}`;
    await json([
      'admin',
      'plans',
      'create',
      '--id',
      planId,
      '--monthly-limit',
      '10',
      '--overage-allowed',
      'false',
    ]);
    await json(['admin', 'plans', 'update', '--id', planId, '--monthly-limit', '20']);
    const { tenant } = await json(['admin', 'tenants', 'create', '--name', 'CLI Co', '--plan', planId]);
    const { project } = await json([
      'admin',
      'projects',
      'create',
      '--tenant',
      tenant.id,
      '--name',
      'App',
      '--from-name',
      'CLI Co',
    ]);
    const { environment } = await json([
      'admin',
      'environments',
      'create',
      '--project',
      project.id,
      '--name',
      'staging',
    ]);
    const paused = await json([
      'admin',
      'environments',
      'update',
      environment.id,
      '--sending-status',
      'paused',
    ]);
    expect(paused.environment.sendingStatus).toBe('paused');
    const created = await json(['admin', 'keys', 'create', '--environment', environment.id]);
    const listed = await json(['admin', 'keys', 'list', '--environment', environment.id]);
    expect(listed.keys.map((k: { id: string }) => k.id)).toEqual([created.key.id]);
    const revoked = await json(['admin', 'keys', 'revoke', created.key.id]);
    expect(revoked.key.status).toBe('revoked');
    const usage = await json(['admin', 'usage', 'show', '--tenant', tenant.id]);
    expect(usage.usage).toMatchObject({ limit: 20, used: 0 });
    const domain = `d${Date.now()}.example.com`;
    await json(['admin', 'domains', 'add', '--domain', domain, '--project', project.id]);
    const set = await json(['admin', 'domains', 'set-status', domain, 'verified']);
    expect(set.domain).toMatchObject({ domain, scope: 'project', status: 'verified' });
    const tenants = await json(['admin', 'tenants', 'list']);
    expect(tenants.tenants.map((t: { id: string }) => t.id)).toContain(tenant.id);
    const projects = await json(['admin', 'projects', 'list', '--tenant', tenant.id]);
    expect(projects.projects).toEqual([project]);
    const environments = await json(['admin', 'environments', 'list', '--project', project.id]);
    expect(environments.environments).toEqual([paused.environment]);
    const deleted = await json(['admin', 'tenants', 'delete', tenant.id]);
    expect(deleted.tenant.deletedAt).not.toBeNull();
    const missing = await run(['admin', 'tenants', 'update', tenant.id, '--name', 'x'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No tenant');
  });
});
