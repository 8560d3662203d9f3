// Test helpers: a stub core, captured logs, and requests straight into the router.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { wrapperConfigFrom } from '../src/config.js';
import { createWrapperLogger } from '../src/logger.js';
import { createRouter, type RouterOptions, type WrapperResponse } from '../src/router.js';

export const API_KEY = 'msk_01TESTKEY00000000000000000_SecretValueThatMustNeverLeak';
export const APP_ORIGIN = 'https://app.example.com';

export function captureLogs() {
  const lines: string[] = [];
  const log = createWrapperLogger(
    'debug',
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  return { log, lines, text: () => lines.join('') };
}

export interface StubCall {
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface StubCore {
  url: string;
  calls: StubCall[];
  /** What the next requests get; default 200 accepted. */
  answer: (call: StubCall) => {
    status: number;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
    delayMs?: number;
  };
  close(): Promise<void>;
}

export async function startStubCore(): Promise<StubCore> {
  const stub: StubCore = {
    url: '',
    calls: [],
    answer: () => ({
      status: 200,
      body: { ok: true, status: 'accepted', messageId: 'msg_01STUB0000000000000000000', idempotent: false },
    }),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') };
      stub.calls.push(call);
      const a = stub.answer(call);
      const reply = () => {
        res.writeHead(a.status, {
          'content-type': 'application/json',
          'x-request-id': 'req_CORE',
          ...a.headers,
        });
        res.end(a.raw ?? JSON.stringify(a.body ?? {}));
      };
      if (a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return stub;
}

export function testRouter(
  settings: Record<string, string | number | boolean | undefined>,
  extra: Partial<RouterOptions> = {},
) {
  const logs = captureLogs();
  const config = wrapperConfigFrom({
    MAILSVC_API_KEY: API_KEY,
    MAILSVC_ALLOWED_ORIGINS: APP_ORIGIN,
    MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE: 0,
    MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR: 0,
    ...settings,
  });
  const router = createRouter({ config, log: logs.log, ...extra });
  return { router, logs, config };
}

export interface Call {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string | Buffer;
  ip?: string;
}

export type Router = ReturnType<typeof testRouter>['router'];

/** POST (by default) a JSON body to a route, as a browser or server would. */
export async function call(router: Router, path: string, c: Call = {}) {
  const hasBody = c.body !== undefined || c.raw !== undefined;
  const body =
    c.raw !== undefined
      ? Buffer.from(c.raw)
      : c.body !== undefined
        ? Buffer.from(JSON.stringify(c.body))
        : undefined;
  const res: WrapperResponse = await router.handle({
    method: c.method ?? 'POST',
    path,
    headers: { ...(hasBody && { 'content-type': 'application/json' }), ...lower(c.headers ?? {}) },
    body,
    ip: c.ip ?? '203.0.113.7',
  });
  return { ...res, json: () => (res.body ? JSON.parse(res.body) : undefined) };
}

const lower = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
