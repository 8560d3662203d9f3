// What a user gets from `npm pack`: the tarball installs into an empty folder with nothing else,
// its types compile in a TypeScript project, and it sends a mail through `mailsvc start` (the
// README's command) that arrives in the local mail capture.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { backend } from '@mailsvc/testkit/harness';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const BIN = path.join(ROOT, 'packages/server/bin/mailsvc.js');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

let work: string;
let consumer: string;
let dataDir: string;
let server: ChildProcess | undefined;
let banner = '';

function startMailsvc(): Promise<void> {
  return new Promise((resolve, reject) => {
    server = spawn(process.execPath, [BIN, 'start'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: os.tmpdir(),
        MAILSVC_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        PORT: '0',
        MAILSVC_WRAPPER_PORT: '0',
      },
    });
    const timer = setTimeout(() => reject(new Error(`mailsvc start printed no banner:\n${banner}`)), 45_000);
    const onData = (d: Buffer) => {
      banner += d;
      if (banner.includes('Press Ctrl+C')) {
        clearTimeout(timer);
        resolve();
      }
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mailsvc start exited with ${code}:\n${banner}`));
    });
  });
}

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  if (backend !== 'pglite') return;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-pack-'));
  consumer = path.join(work, 'app');
  dataDir = path.join(work, 'data');
  fs.mkdirSync(consumer);
  const [packed] = JSON.parse(
    npm(['pack', '--json', '--pack-destination', work], path.join(ROOT, 'packages/client')),
  ) as { filename: string }[];
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  npm(['install', '--offline', '--no-audit', '--no-fund', path.join(work, packed!.filename)], consumer);
  await startMailsvc();
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.removeAllListeners('exit');
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe.runIf(backend === 'pglite')('the packed client', () => {
  it('holds only the built files and the README, with no dependencies', () => {
    const pkg = JSON.parse(
      fs.readFileSync(path.join(consumer, 'node_modules/@mailsvc/client/package.json'), 'utf8'),
    );
    expect(pkg.dependencies).toBeUndefined();
    const files = fs.readdirSync(path.join(consumer, 'node_modules/@mailsvc/client')).sort();
    expect(files).toEqual(['README.md', 'dist', 'package.json']);
    expect(fs.existsSync(path.join(consumer, 'node_modules/@mailsvc/client/dist/index.d.ts'))).toBe(true);
  });

  it('sends a mail through mailsvc start that arrives in the mail capture, and types its errors', async () => {
    const api = /API\s+(http:\/\/\S+)/.exec(banner)![1]!;
    const apiKey = /API key\s+(msk_\S+)/.exec(banner)![1]!;
    const wrapperUrl = /Wrapper\s+(http:\/\/\S+)/.exec(banner)![1]!;
    fs.writeFileSync(
      path.join(consumer, 'send.mjs'),
      `import { Mailsvc, MailsvcError, MailsvcWrapper } from '@mailsvc/client';
const client = new Mailsvc({ apiKey: process.env.MAILSVC_API_KEY, baseUrl: process.env.MAILSVC_URL });
const sent = await client.emails.send({ templateId: 'login-code', to: 'packed@example.com', data: { code: '246810' } });
let refused;
try {
  await client.emails.send({ templateId: 'no-such-template', to: 'packed@example.com', data: {} });
} catch (err) {
  refused = err instanceof MailsvcError ? { code: err.code, status: err.status } : String(err);
}
const wrapper = new MailsvcWrapper({ baseUrl: process.env.WRAPPER_URL });
const viaWrapper = await wrapper.auth.loginCode({ to: 'packed-wrapper@example.com', data: { code: '135790' } });
console.log(JSON.stringify({ sent, refused, viaWrapper }));
`,
    );
    const out = execFileSync(process.execPath, ['send.mjs'], {
      cwd: consumer,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        MAILSVC_API_KEY: apiKey,
        MAILSVC_URL: api,
        WRAPPER_URL: wrapperUrl,
      },
    });
    const { sent, refused, viaWrapper } = JSON.parse(out);
    expect(sent).toMatchObject({ ok: true, status: 'accepted', idempotent: false });
    expect(refused).toEqual({ code: 'template_not_found', status: 404 });
    expect(viaWrapper).toMatchObject({ ok: true, status: 'accepted' });

    for (const [messageId, to, code] of [
      [sent.messageId, 'packed@example.com', '246810'],
      [viaWrapper.messageId, 'packed-wrapper@example.com', '135790'],
    ] as const) {
      const file = path.join(dataDir, 'inbox', `${messageId}.eml`);
      const deadline = Date.now() + 30_000;
      while (!fs.existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const mail = await simpleParser(fs.readFileSync(file));
      expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined).toBe(to);
      expect(mail.text).toContain(code);
      expect(mail.headers.get('x-mailsvc-message-id')).toBe(messageId);
    }
  });

  it('type-checks a TypeScript consumer against the packed declarations (login-code needs code)', () => {
    fs.writeFileSync(
      path.join(consumer, 'check.ts'),
      `import { Mailsvc, MailsvcWrapper, isMailsvcError } from '@mailsvc/client';
const client = new Mailsvc({ apiKey: 'msk_x_y', baseUrl: 'http://127.0.0.1:3000' });
const wrapper = new MailsvcWrapper({ baseUrl: 'http://127.0.0.1:3001' });
export async function main(): Promise<string> {
  await wrapper.auth.loginCode({ to: 'a@example.com', data: { code: '1' } });
  // @ts-expect-error login-code needs code
  await wrapper.auth.loginCode({ to: 'a@example.com', data: {} });
  try {
    const sent = await client.emails.send({ templateId: 'login-code', to: 'a@example.com', data: { code: '1' } });
    return sent.messageId;
  } catch (err) {
    if (isMailsvcError(err, 'rate_limited')) return String(err.retryAfter);
    throw err;
  }
}
`,
    );
    const r = spawnTsc();
    expect(r.status, r.output).toBe(0);
    // The same file with the directive removed fails: the check can fail.
    const source = fs.readFileSync(path.join(consumer, 'check.ts'), 'utf8');
    fs.writeFileSync(
      path.join(consumer, 'check.ts'),
      source.replace('  // @ts-expect-error login-code needs code\n', ''),
    );
    const broken = spawnTsc();
    expect(broken.status).not.toBe(0);
    expect(broken.output).toMatch(/code/);
  });
});

function spawnTsc(): { status: number | null; output: string } {
  fs.writeFileSync(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
      },
      files: ['check.ts'],
    }),
  );
  try {
    const output = execFileSync(process.execPath, [TSC, '-p', '.'], {
      cwd: consumer,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { status: 0, output };
  } catch (err) {
    const e = err as { status: number | null; stdout?: string; stderr?: string };
    return { status: e.status, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
