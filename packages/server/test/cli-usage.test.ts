// The `mailsvc` command's arguments, usage, output handling and the operator mistakes it refuses
// before opening any database: nothing here depends on the backend, so the file runs once (the
// `service` project), not once per backend.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { absentDir, BIN, baseEnv, expectOneLine, type Result, run } from '@mailsvc/testkit/cli-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dataDir: string;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-cli-args-'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('mailsvc arguments', () => {
  it('prints the usage for start, api and worker --help instead of starting them', async () => {
    const r = await run(
      ['worker', '--help'],
      baseEnv(fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-help-'))),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: mailsvc <command>');
    expect(r.stdout).not.toContain('is running');
  });

  it('prints the version of package.json for --version and -v and exits 0', async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
    const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
    // The root package's version; while it declares none, the server package's (which has the bin).
    const version = read('package.json').version ?? read('packages/server/package.json').version;
    for (const flag of ['--version', '-v']) {
      const r = await run([flag], baseEnv(dataDir));
      expect(r.code, flag).toBe(0);
      expect(r.stdout, flag).toBe(`mailsvc ${version}\n`);
      expect(r.stderr, flag).toBe('');
    }
  });

  it('prints the templates usage for templates --help and -h and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await run(['templates', flag], baseEnv(dataDir));
      expect(r.code, flag).toBe(0);
      expect(r.stdout, flag).toContain('Usage: mailsvc templates');
      expect(r.stderr, flag).toBe('');
    }
  });

  it('prints the webhooks usage for webhooks --help, and refuses listen without --forward-to, with a bad one, or without a key, with exit 2', async () => {
    const help = await run(['webhooks', '--help'], baseEnv(dataDir));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mailsvc webhooks listen --forward-to URL');
    expect(help.stdout).toContain('MAILSVC_WEBHOOK_ALLOW_PRIVATE=true');
    for (const [args, text] of [
      [['webhooks', 'listen'], '--forward-to is required'],
      [['webhooks', 'listen', '--forward-to', 'localhost:4000'], '--forward-to: expected an http URL'],
      [['webhooks', 'listen', '--forward-to', 'http://localhost:4000', '--url', 'ftp://x'], '--url must be'],
      [['webhooks', 'listen', '--forward-to', 'http://localhost:4000'], 'needs a full-scope API key'],
      [['webhooks', 'forward'], "unknown action 'forward'"],
    ] as const) {
      const r = await run([...args], baseEnv(dataDir));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toContain(text);
      expect(r.stdout).toBe('');
    }
  });

  it('stops quietly when its output is cut short (mailsvc templates list | head -1)', async () => {
    const r = await new Promise<Result>((resolve, reject) => {
      const child = spawn(
        'sh',
        ['-c', `"${process.execPath}" "${BIN}" templates list | head -1 >/dev/null`],
        {
          env: baseEnv(dataDir),
        },
      );
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout: '', stderr }));
    });
    expect(r.stderr).not.toContain('EPIPE');
  });

  it('gives a one-line error and exit 2 for bad arguments', async () => {
    for (const args of [
      ['admin', 'plans', 'create', '--id', 'x', '--monthly-limit', 'many', '--overage-allowed', 'true'],
      ['admin', 'plans', 'create', '--id', 'x'],
      ['admin', 'tenants', 'explode'],
      ['admin', 'keys', 'list', '--environment', 'env_1', '--nope', '1'],
    ]) {
      const r = await run(args, baseEnv(dataDir));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });
  it('refuses to create an empty database where none is (the wrong MAILSVC_DATA_DIR), naming the fix', async () => {
    const wrong = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-wrong-'));
    // the embedded database's rule: on either backend's run, the command is given no DATABASE_URL
    const { DATABASE_URL: _, ...env } = baseEnv(wrong);
    const r = await run(['admin', 'tenants', 'list'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no database in ${wrong}`);
    expect(r.stderr).toContain('MAILSVC_DATA_DIR');
    expect(fs.existsSync(path.join(wrong, 'pgdata'))).toBe(false);
    fs.rmSync(wrong, { recursive: true, force: true });
  });
});

describe('operator mistakes get one clear line, a non-zero exit, and nothing created', () => {
  it('refuses a port in use before creating or migrating anything', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const dir = absentDir();
    try {
      const r = await run(['start'], { ...baseEnv(dir), PORT: String(port) });
      expectOneLine(r, `port ${port} on 127.0.0.1 is in use`);
      expect(fs.existsSync(dir)).toBe(false);
    } finally {
      busy.close();
    }
  });

  it('refuses a database that cannot be reached, naming where, without pg internals', async () => {
    const dir = absentDir();
    const r = await run(['migrate'], {
      ...baseEnv(dir),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/mailsvc',
    });
    expectOneLine(r, 'cannot connect to the database at postgres://127.0.0.1:1/mailsvc');
    expect(r.stderr).toContain('ECONNREFUSED');
    const started = await run(['start'], {
      ...baseEnv(dir),
      PORT: '0',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/mailsvc',
    });
    expectOneLine(started, 'cannot connect to the database');
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('refuses mailsvc worker on the embedded database, without taking its lock', async () => {
    const dir = absentDir();
    const env = baseEnv(dir);
    delete env.DATABASE_URL;
    const r = await run(['worker'], env);
    expectOneLine(r, 'needs DATABASE_URL');
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('refuses to deliver over SMTP without a public https MAILSVC_PUBLIC_URL (unsubscribe links in real mail)', async () => {
    for (const command of ['start', 'worker']) {
      const dir = absentDir();
      const r = await run([command], {
        ...baseEnv(dir),
        DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        MAILSVC_SMTP_URL: 'smtp://127.0.0.1:2525',
        PORT: '0',
      });
      expectOneLine(r, 'delivering over SMTP needs MAILSVC_PUBLIC_URL');
      expect(fs.existsSync(dir)).toBe(false);
    }
  });
});
