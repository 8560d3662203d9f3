// The standalone runner over real HTTP, and the `mailsvc wrapper` command.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FirebaseAdminMissingError } from '../src/app-check.js';
import { wrapperConfigFrom } from '../src/config.js';
import { clientIp, type RunningWrapper, startWrapperServer } from '../src/server.js';
import { API_KEY, APP_ORIGIN, captureLogs, type StubCore, startStubCore } from './helpers.js';

let stub: StubCore;
let wrapper: RunningWrapper;

beforeAll(async () => {
  stub = await startStubCore();
  wrapper = await startWrapperServer({
    config: wrapperConfigFrom({
      MAILSVC_API_KEY: API_KEY,
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_ALLOWED_ORIGINS: APP_ORIGIN,
      MAILSVC_WRAPPER_PORT: 0,
    }),
    log: captureLogs().log,
  });
});
afterAll(async () => {
  await wrapper.close();
  await stub.close();
});
beforeEach(() => {
  stub.calls.length = 0;
});

/** Whether a package resolves from this package (the default install has no firebase-admin). */
function isInstalled(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

const LOGIN = JSON.stringify({ to: 'jane@example.com', data: { code: '482913' } });
const post = (p: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${wrapper.url}${p}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('the standalone server', () => {
  it('answers at /<route>', async () => {
    const res = await post('/auth/login-code', LOGIN);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(stub.calls).toHaveLength(1);
  });

  it('answers under /<project_id>/europe-west2/<function_name>/<route>, the emulator address shape', async () => {
    const res = await post('/demo-mailsvc/europe-west2/mailsvc/auth/login-code', LOGIN);
    expect(res.status).toBe(200);
    expect(stub.calls[0]!.body.templateId).toBe('login-code');
  });

  it('serves the OpenAPI document and answers HEAD without a body', async () => {
    const res = await fetch(`${wrapper.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(Object.keys(((await res.json()) as { paths: object }).paths)).toHaveLength(52);
    const head = await fetch(`${wrapper.url}/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('answers a body over 256 KiB with 413 payload_too_large', async () => {
    const res = await post(
      '/auth/login-code',
      JSON.stringify({ to: 'a@example.com', data: { code: 'x'.repeat(400_000) } }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    expect(stub.calls).toHaveLength(0);
  });

  it('refuses a disallowed origin over HTTP with 403 and sends nothing', async () => {
    const res = await post('/auth/login-code', LOGIN, {
      origin: 'https://evil.example',
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(403);
    expect(stub.calls).toHaveLength(0);
  });
});

describe('App Check without firebase-admin (left out of npm install)', () => {
  it.runIf(!isInstalled('firebase-admin'))(
    'refuses to start when App Check is required, naming the package and its version',
    async () => {
      const start = startWrapperServer({
        config: wrapperConfigFrom({
          MAILSVC_API_KEY: API_KEY,
          MAILSVC_CORE_URL: stub.url,
          MAILSVC_WRAPPER_PORT: 0,
          MAILSVC_REQUIRE_APP_CHECK: true,
        }),
        log: captureLogs().log,
      });
      await expect(start).rejects.toBeInstanceOf(FirebaseAdminMissingError);
      const { peerDependencies } = JSON.parse(
        fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
      );
      await expect(start).rejects.toThrow(`npm install firebase-admin@${peerDependencies['firebase-admin']}`);
    },
  );
});

describe('clientIp', () => {
  const fake = (xff?: string) =>
    ({
      headers: xff ? { 'x-forwarded-for': xff } : {},
      socket: { remoteAddress: '10.0.0.5' },
    }) as unknown as http.IncomingMessage;

  it('uses the socket address unless told to trust the proxy', () => {
    expect(clientIp(fake('1.2.3.4'), false)).toBe('10.0.0.5');
  });

  it('behind a trusted proxy takes the last X-Forwarded-For entry, which a client cannot forge', () => {
    expect(clientIp(fake('6.6.6.6, 1.2.3.4'), true)).toBe('1.2.3.4');
    expect(clientIp(fake(), true)).toBe('10.0.0.5');
  });
});

describe('mailsvc wrapper', () => {
  const bin = path.resolve(import.meta.dirname, '../../server/bin/mailsvc.js');

  function run(env: Record<string, string>) {
    const child = spawn(process.execPath, [bin, 'wrapper'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    return { child, output: () => out, exited };
  }

  it('starts from the environment, prints its URL, forwards, and stops on SIGTERM', async () => {
    const p = run({ MAILSVC_API_KEY: API_KEY, MAILSVC_CORE_URL: stub.url, MAILSVC_WRAPPER_PORT: '0' });
    const deadline = Date.now() + 20_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline) {
      url = /Wrapper {4}(http:\/\/\S+)/.exec(p.output())?.[1];
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(url, p.output()).toBeDefined();
    const res = await fetch(`${url}/auth/login-code`, {
      method: 'POST',
      body: LOGIN,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).not.toContain(API_KEY);
  });

  it('refuses to listen on 0.0.0.0 without App Check or MAILSVC_ALLOW_ANONYMOUS, naming both', async () => {
    const p = run({ MAILSVC_API_KEY: API_KEY, MAILSVC_WRAPPER_PORT: '0', MAILSVC_WRAPPER_HOST: '0.0.0.0' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('MAILSVC_REQUIRE_APP_CHECK=true');
    expect(p.output()).toContain('MAILSVC_ALLOW_ANONYMOUS=true');
    expect(p.output()).not.toContain(API_KEY);
  });

  it('refuses to start without MAILSVC_API_KEY, naming it', async () => {
    const p = run({ MAILSVC_WRAPPER_PORT: '0', MAILSVC_ALLOWED_ORIGINS: '*' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('MAILSVC_API_KEY is required');
    expect(p.output()).toContain('MAILSVC_ALLOWED_ORIGINS');
  });
});

describe('mailsvc start', () => {
  it('runs the wrapper on MAILSVC_WRAPPER_PORT wired to its own API with the dev key, prints its URL and stops with it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-start-wrapper-'));
    const bin = path.resolve(import.meta.dirname, '../../server/bin/mailsvc.js');
    const child = spawn(process.execPath, [bin, 'start'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: os.tmpdir(),
        MAILSVC_DATA_DIR: dataDir,
        PORT: '0',
        MAILSVC_WRAPPER_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 45_000;
      while (!out.includes('Press Ctrl+C') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      const url = /Wrapper {4}(http:\/\/\S+)/.exec(out)?.[1];
      expect(url, out).toBeDefined();
      const res = await fetch(`${url}/auth/login-code`, {
        method: 'POST',
        body: LOGIN,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { messageId: string }).messageId).toMatch(/^msg_/);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
