// Requests Node's HTTP parser refuses never reach the router; the standalone server still answers
// them with the error envelope and X-Request-Id (DESIGN.md §2). Sent over raw sockets, since
// fetch cannot send a malformed request.
import net from 'node:net';
import { type RawAnswer, rawUntilClose } from '@mailsvc/testkit/raw-http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { wrapperConfigFrom } from '../src/config.js';
import { wrapperErrors } from '../src/errors.js';
import { type RunningWrapper, startWrapperServer } from '../src/server.js';
import { API_KEY, call, captureLogs, type StubCore, startStubCore, testRouter } from './helpers.js';

let stub: StubCore;
let wrapper: RunningWrapper;
let logs: ReturnType<typeof captureLogs>;

beforeAll(async () => {
  stub = await startStubCore();
  logs = captureLogs();
  wrapper = await startWrapperServer({
    config: wrapperConfigFrom({
      MAILSVC_API_KEY: API_KEY,
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_WRAPPER_PORT: 0,
    }),
    log: logs.log,
    timeouts: { headersMs: 600, requestMs: 1200 },
  });
});
afterAll(async () => {
  await wrapper.close();
  await stub.close();
});
beforeEach(() => {
  stub.calls.length = 0;
});

const HEAD = 'POST /auth/login-code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
const BODY = JSON.stringify({ to: 'jane@example.com', data: { code: '482913' } });

/** The envelope, X-Request-Id equal to its requestId, Connection: close, the catalogue's status. */
function expectEnvelope(reply: RawAnswer, code: keyof typeof wrapperErrors) {
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(reply.body);
  expect(body).toEqual({
    ok: false,
    error: { code, message: expect.any(String), requestId: expect.stringMatching(/^req_[0-9A-Z]{26}$/) },
  });
  expect(reply.headers['x-request-id']).toBe(body.error.requestId);
  expect(reply.headers.connection).toBe('close');
  expect(reply.status).toBe(wrapperErrors[code].status);
  expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
}

describe('a request the HTTP parser refuses', () => {
  it.each([
    ['a CR inside a header value', `${HEAD}X-Note: a\rb\r\n\r\n`],
    ['a bare LF inside a header value', `${HEAD}X-Note: a\nb: c\r\n\r\n`],
    ['a NUL inside a header value', `${HEAD}X-Note: a\0b\r\n\r\n`],
    ['two Content-Length headers', `${HEAD}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
    ['two Host headers', `${HEAD}Host: attacker.example\r\nContent-Length: 2\r\n\r\n{}`],
    [
      'Content-Length with Transfer-Encoding',
      `${HEAD}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    ['a bad chunk size', `${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ['an obs-folded header', `${HEAD}X-Note: a\r\n  folded\r\n\r\n`],
    ['no method', 'HELLO\r\n\r\n'],
    [
      'HTTP/1.1 without Host',
      `POST /auth/login-code HTTP/1.1\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
    ],
  ])(
    'answers %s with 400 invalid_request in the envelope, X-Request-Id and Connection: close',
    async (_name, raw) => {
      const reply = await rawUntilClose(wrapper.port, raw);
      expectEnvelope(reply, 'invalid_request');
      expect(JSON.parse(reply.body).error.message).toBe('Malformed HTTP request.');
      expect(stub.calls).toHaveLength(0);
    },
  );

  it('answers 20 KB of headers with 431 headers_too_large', async () => {
    const reply = await rawUntilClose(wrapper.port, `${HEAD}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(reply, 'headers_too_large');
  });

  it('answers headers that trickle in slower than the headers timeout with 408 request_timeout', async () => {
    const started = Date.now();
    const reply = await rawUntilClose(wrapper.port, ['POST /auth/login-code HTTP/1.1\r\n', 'Host: x\r\n'], {
      gapMs: 100,
    });
    expectEnvelope(reply, 'request_timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers a body that trickles in slower than the request timeout with 408 request_timeout', async () => {
    const pieces = [`${HEAD}Content-Length: ${BODY.length}\r\n\r\n`, ...BODY.slice(0, 20).split('')];
    const reply = await rawUntilClose(wrapper.port, pieces, { gapMs: 100 });
    expectEnvelope(reply, 'request_timeout');
    expect(stub.calls).toHaveLength(0);
  });

  it('answers CONNECT with 405 method_not_allowed in the envelope', async () => {
    expectEnvelope(
      await rawUntilClose(wrapper.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      'method_not_allowed',
    );
  });

  it('answers a body declared over 256 KiB with 413 at once, without waiting for it (not 408)', async () => {
    const reply = await rawUntilClose(wrapper.port, `${HEAD}Content-Length: 10000000\r\n\r\n{`);
    expectEnvelope(reply, 'payload_too_large');
    expect(stub.calls).toHaveLength(0);
  });

  it('logs the refusal with its request id and parser code, never the raw request', async () => {
    const before = logs.lines.length;
    const reply = await rawUntilClose(wrapper.port, `${HEAD}X-Secret: s3cr3t\0\r\n\r\n`);
    const line = logs.lines.slice(before).find((l) => l.includes(JSON.parse(reply.body).error.requestId));
    expect(JSON.parse(line!)).toMatchObject({ status: 400, parserCode: 'HPE_INVALID_HEADER_TOKEN' });
    expect(logs.lines.slice(before).join('')).not.toContain('s3cr3t');
  });

  it('still serves a well-formed request on the same server', async () => {
    const reply = await rawUntilClose(
      wrapper.port,
      `${HEAD}Content-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('every answer of the router', () => {
  const { router } = testRouter({ MAILSVC_CORE_URL: 'http://127.0.0.1:1' });
  afterAll(() => router.close());

  it.each([
    ['a preflight (204)', '/auth/login-code', { method: 'OPTIONS' }, 204],
    ['an unknown path (404)', '/nope', {}, 404],
    ['GET on a route (405)', '/auth/login-code', { method: 'GET' }, 405],
    ['a body over 256 KiB (413)', '/auth/login-code', { raw: `"${'a'.repeat(300_000)}"` }, 413],
    [
      'a text/plain body (415)',
      '/auth/login-code',
      { raw: '{}', headers: { 'content-type': 'text/plain' } },
      415,
    ],
    ['a bad envelope (400)', '/auth/login-code', { body: {} }, 400],
    [
      'an unreachable core (500)',
      '/auth/login-code',
      { body: { to: 'jane@example.com', data: { code: '1' } } },
      500,
    ],
  ] as const)('carries X-Request-Id: %s', async (_name, path, c, status) => {
    const res = await call(router, path, c);
    expect(res.status).toBe(status);
    expect(res.headers['X-Request-Id']).toMatch(/^req_[0-9A-Z]{26}$/);
    if (status !== 204) expect(res.json().error.requestId).toBe(res.headers['X-Request-Id']);
  });
});

describe('the server timeouts', () => {
  it('bound headers and the whole request (at most 30 s) and close idle kept-alive connections', async () => {
    const w = await startWrapperServer({
      config: wrapperConfigFrom({ MAILSVC_API_KEY: API_KEY, MAILSVC_CORE_URL: stub.url }),
      port: 0,
      log: captureLogs().log,
    });
    try {
      expect(w.server.headersTimeout).toBeLessThanOrEqual(w.server.requestTimeout);
      expect(w.server.requestTimeout).toBeGreaterThan(0);
      expect(w.server.requestTimeout).toBeLessThanOrEqual(30_000);
      expect(w.server.keepAliveTimeout).toBeGreaterThan(0);
      expect(w.server.keepAliveTimeout).toBeLessThan(w.server.headersTimeout);
    } finally {
      await w.close();
    }
  });
});

describe('close()', () => {
  it('does not wait for a client that is still trickling its headers', async () => {
    const w = await startWrapperServer({
      config: wrapperConfigFrom({ MAILSVC_API_KEY: API_KEY, MAILSVC_CORE_URL: stub.url }),
      port: 0,
      log: captureLogs().log,
    });
    const socket = net.connect(w.port, '127.0.0.1');
    await new Promise((r) => socket.on('connect', r));
    socket.write('POST /auth/login-code HTTP/1.1\r\nHost: x\r\n');
    socket.on('error', () => {});
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await w.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    socket.destroy();
  });

  it('lets a send the core is already handling finish, then closes', async () => {
    const w = await startWrapperServer({
      config: wrapperConfigFrom({ MAILSVC_API_KEY: API_KEY, MAILSVC_CORE_URL: stub.url }),
      port: 0,
      log: captureLogs().log,
    });
    stub.answer = () => ({
      status: 200,
      body: { ok: true, status: 'accepted', messageId: 'msg_01STUB0000000000000000000', idempotent: false },
      delayMs: 300,
    });
    try {
      const pending = fetch(`${w.url}/auth/login-code`, {
        method: 'POST',
        body: BODY,
        headers: { 'content-type': 'application/json' },
      });
      while (stub.calls.length === 0) await new Promise((r) => setTimeout(r, 10));
      const closed = w.close();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(((await res.json()) as { messageId: string }).messageId).toMatch(/^msg_/);
      await closed;
    } finally {
      stub.answer = () => ({
        status: 200,
        body: { ok: true, status: 'accepted', messageId: 'msg_01STUB0000000000000000000', idempotent: false },
      });
    }
  });
});
