// The edges of HTTP on a real listening socket: requests Node's parser rejects, methods the
// router does not know, paths that do not decode, trickled requests and a bounded shutdown. Every
// answer carries the error envelope, a request id, and a code whose catalogue status it has.
import net from 'node:net';
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { type RawAnswer, rawUntilClose } from '@mailsvc/testkit/raw-http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, closeApp } from '../src/api/app.js';
import { errorCatalogue } from '../src/errors.js';

let h: Harness;
let app: FastifyInstance;
let port: number;
let s: Scope;

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_HTTP_REQUEST_TIMEOUT_MS: '1000' } });
  app = await buildApp(h.runtime.deps, {});
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
  s = await seedScope(h);
});
afterAll(async () => {
  await app.close();
  await h.close();
});

/** Writes `chunks` (spaced by `gapMs`) to a new connection and reads until it closes. */
const raw = (chunks: (string | Buffer)[], gapMs = 0) => rawUntilClose(port, chunks, { gapMs });

function expectEnvelope(res: RawAnswer, code: string) {
  expect(res.status, res.body).toBe(errorCatalogue[code as keyof typeof errorCatalogue].status);
  const body = JSON.parse(res.body);
  expect(body).toEqual({
    ok: false,
    error: { code, message: expect.any(String), requestId: expect.stringMatching(/^req_/) },
  });
  expect(res.headers['x-request-id']).toBe(body.error.requestId);
}

describe("requests Node's HTTP parser rejects", () => {
  it.each([
    ['a CR in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n'],
    ['a NUL in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'],
    [
      'two Content-Length headers',
      'POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ],
    [
      'Content-Length with Transfer-Encoding',
      'POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'a bad chunk size',
      'POST /v1/send HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n',
    ],
    ['an obs-folded header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n'],
    ['no Host on HTTP/1.1', 'GET /healthz HTTP/1.1\r\n\r\n'],
    [
      'two Host headers',
      'GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\nConnection: close\r\n\r\n',
    ],
    ['an unknown method', 'FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['garbage', '\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\r\n\r\n'],
  ])('answers %s with 400 invalid_request in the envelope', async (_name, request) => {
    expectEnvelope(await raw([request]), 'invalid_request');
  });

  it('answers a 20 KB header with 431 headers_too_large', async () => {
    expectEnvelope(
      await raw([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`]),
      'headers_too_large',
    );
  });

  it('answers CONNECT with 405 method_not_allowed', async () => {
    expectEnvelope(
      await raw(['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']),
      'method_not_allowed',
    );
  });
});

describe('routing', () => {
  it.each(['TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'PURGE'])(
    'answers %s on a known path with 405 and Allow',
    async (method) => {
      const res = await raw([`${method} /v1/quota HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
      expectEnvelope(res, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    },
  );

  it('answers a path that does not decode with 400 invalid_request, not a Fastify error', async () => {
    const res = await raw(['GET /v1/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expectEnvelope(res, 'invalid_request');
    expect(res.body).not.toContain('FST_');
  });
});

describe('timeouts', () => {
  it('closes a connection whose body trickles in with 408 request_timeout, authenticated or not', async () => {
    for (const [path, type, auth] of [
      ['/v1/send', 'application/json', `Authorization: Bearer ${s.apiKey}\r\n`],
      ['/u/some-token', 'application/x-www-form-urlencoded', ''],
    ]) {
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: ${type}\r\nContent-Length: 1000\r\n\r\n`;
      const trickle = Array.from({ length: 100 }, () => 'a');
      const res = await raw([head, ...trickle], 100);
      expectEnvelope(res, 'request_timeout');
    }
  });

  it('answers requests that arrive while it drains with 503 service_unavailable in the envelope', async () => {
    const other = await buildApp(h.runtime.deps, {});
    await other.listen({ port: 0, host: '127.0.0.1' });
    const otherPort = (other.server.address() as net.AddressInfo).port;
    const socket = net.connect(otherPort, '127.0.0.1');
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (d) => {
      received += d;
    });
    await new Promise((r) => socket.once('connect', r));
    const body = JSON.stringify({ templateId: 'login-code', to: 'drain@example.com', data: { code: '1' } });
    // A request in progress (authenticated, body pending) keeps its connection through the close.
    socket.write(
      `POST /v1/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const closing = closeApp(other, 5000);
    await new Promise((r) => setTimeout(r, 100));
    socket.write(body);
    // The next request on the same connection arrives while the server drains.
    socket.write('GET /v1/quota HTTP/1.1\r\nHost: x\r\n\r\n');
    await closing;
    await new Promise((r) => setTimeout(r, 100));
    const answers = received.split('HTTP/1.1 ').slice(1);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^200 /);
    expect(answers[1]).toMatch(/^503 /);
    const json = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4));
    expect(json.error.code).toBe('service_unavailable');
    expect(answers[1]).toContain(`x-request-id: ${json.error.requestId}`);
    expect(answers[1]).toMatch(/retry-after: 1/i);
    socket.destroy();
  }, 15_000);

  it('bounds a shutdown a trickling client would otherwise hold', async () => {
    const other = await buildApp(h.runtime.deps, {});
    await other.listen({ port: 0, host: '127.0.0.1' });
    const otherPort = (other.server.address() as net.AddressInfo).port;
    const socket = net.connect(otherPort, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.resume();
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(
      `POST /v1/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    // The request is being read (authenticated, body pending) when the shutdown starts.
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await closeApp(other, 200);
    await closed;
    // A hang guard, not a speed check: without the bound the close waits for the client.
    expect(Date.now() - started).toBeLessThan(5000);
  }, 10_000);
});
