import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeEgressAgents, postWebhook, type WebhookLookup } from './egress.js';

type Received = { url: string; headers: http.IncomingHttpHeaders; body: string };

/** A real HTTP server on 127.0.0.1 that records what reaches it and answers by path. */
async function startServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const received: Received[] = [];
  const state = { connections: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      answer(req, res);
    });
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, port, received, state, base: `http://127.0.0.1:${port}` };
}

const stop = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

let receiver: Awaited<ReturnType<typeof startServer>>;
let landing: Awaited<ReturnType<typeof startServer>>;
let closedPort: number;
const retryDate = () => new Date(Date.now() + 60_000).toUTCString();

beforeAll(async () => {
  landing = await startServer((_req, res) => res.end('landed'));
  receiver = await startServer((req, res) => {
    const path = req.url ?? '';
    if (path.startsWith('/ok')) res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    else if (path === '/big')
      res.writeHead(200).write('x'.repeat(100 * 1024)); // 100 KB, still open
    else if (path === '/redirect') res.writeHead(302, { location: `${landing.base}/landed` }).end();
    else if (path === '/busy') res.writeHead(429, { 'retry-after': '120' }).end('slow down');
    else if (path === '/later') res.writeHead(503, { 'retry-after': retryDate() }).end();
    else if (path === '/trickle') res.writeHead(200).write('partial'); // and never ends
    // '/silent' never answers at all.
  });
  const closed = await startServer(() => {});
  closedPort = closed.port;
  await stop(closed.server);
});

afterAll(async () => {
  closeEgressAgents();
  await Promise.all([stop(receiver.server), stop(landing.server)]);
});

const post = (url: string, extra: Partial<Parameters<typeof postWebhook>[0]> = {}) =>
  postWebhook({ url, headers: {}, body: '{}', timeoutMs: 5000, allowPrivate: true, ...extra });

describe('postWebhook to an allowed address', () => {
  it('POSTs the body as JSON with the given headers and reports the answer', async () => {
    const body = JSON.stringify({ type: 'message.delivered', data: { id: 'msg_1', note: 'héllo' } });
    const headers = { 'webhook-id': 'evt_1', 'Webhook-Signature': 'v1,abc', host: 'evil.example' };
    const response = await post(`${receiver.base}/ok?x=1`, { body, headers });
    expect(response).toMatchObject({ status: 200, body: 'thanks' });
    expect(response.error).toBeUndefined();
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
    const got = receiver.received.at(-1)!;
    expect(got.url).toBe('/ok?x=1');
    expect(got.body).toBe(body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(got.headers['webhook-id']).toBe('evt_1');
    expect(got.headers['webhook-signature']).toBe('v1,abc');
    // Routing is ours: a caller's Host header does not replace the URL's.
    expect(got.headers.host).toBe(`127.0.0.1:${receiver.port}`);
  });

  it('reads at most 4096 bytes of the body, stops reading, and still reports the status', async () => {
    // The response never ends: only stopping at the cap answers before the timeout.
    const response = await post(`${receiver.base}/big`, { timeoutMs: 2000 });
    expect(response.status).toBe(200);
    expect(response.body).toBe('x'.repeat(4096));
    expect(response.error).toBeUndefined();
  });

  it('reports a 302 with its location and does not follow it', async () => {
    const response = await post(`${receiver.base}/redirect`);
    expect(response.status).toBe(302);
    expect(response.location).toBe(`${landing.base}/landed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(landing.received).toHaveLength(0);
    expect(landing.state.connections).toBe(0);
  });

  it('reads Retry-After in delta-seconds from a 429', async () => {
    const response = await post(`${receiver.base}/busy`);
    expect(response).toMatchObject({ status: 429, body: 'slow down', retryAfterSeconds: 120 });
  });

  it('reads Retry-After as an HTTP-date from a 503', async () => {
    const response = await post(`${receiver.base}/later`);
    expect(response.status).toBe(503);
    expect(response.retryAfterSeconds).toBeGreaterThanOrEqual(58);
    expect(response.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('times out with kind timeout when the server never answers', async () => {
    const started = Date.now();
    const response = await post(`${receiver.base}/silent`, { timeoutMs: 300 });
    expect(response.error?.kind).toBe('timeout');
    expect(response.status).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('times out with the status when the body never finishes', async () => {
    const response = await post(`${receiver.base}/trickle`, { timeoutMs: 300 });
    expect(response).toMatchObject({ status: 200, body: 'partial', error: { kind: 'timeout' } });
  });

  it('reports a refused connection with kind connection', async () => {
    const response = await post(`http://127.0.0.1:${closedPort}/`);
    expect(response.status).toBeUndefined();
    expect(response.error).toMatchObject({
      kind: 'connection',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });
});

/** A lookup that answers `addresses` for every name and counts its calls. */
function fakeLookup(...addresses: string[]) {
  const calls: string[] = [];
  const lookup: WebhookLookup = async (host) => {
    calls.push(host);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

describe('postWebhook pins the connection to the checked address', () => {
  it('connects to the looked-up address once, keeping the hostname as Host', async () => {
    const { lookup, calls } = fakeLookup('127.0.0.1');
    const response = await post(`http://hooks.test:${receiver.port}/ok-pinned`, { lookup });
    expect(response.status).toBe(200);
    expect(calls).toEqual(['hooks.test']);
    const got = receiver.received.at(-1)!;
    expect(got.url).toBe('/ok-pinned');
    expect(got.headers.host).toBe(`hooks.test:${receiver.port}`);
  });

  it('reports a name that does not resolve with kind dns', async () => {
    const lookup: WebhookLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    const response = await post('https://nowhere.test/', { lookup });
    expect(response.error).toEqual({
      kind: 'dns',
      message: "the URL's host nowhere.test did not resolve (ENOTFOUND)",
    });
  });

  it('reports a name that resolves to no address with kind dns', async () => {
    const response = await post('https://empty.test/', { lookup: fakeLookup().lookup });
    expect(response.error?.kind).toBe('dns');
  });

  it('times out a lookup that never answers', async () => {
    const lookup: WebhookLookup = () => new Promise(() => {});
    const response = await post('https://stuck.test/', { lookup, timeoutMs: 200 });
    expect(response.error?.kind).toBe('timeout');
  });
});

describe('postWebhook refuses non-public addresses without connecting', () => {
  const strict = { allowPrivate: false };

  it('refuses the 127.0.0.1 server and makes no connection', async () => {
    const { lookup, calls } = fakeLookup('8.8.8.8');
    const before = receiver.state.connections;
    // https: without the switch, http is refused before the address is looked at
    const response = await post(`${receiver.base.replace('http:', 'https:')}/ok`, { ...strict, lookup });
    expect(response.status).toBeUndefined();
    expect(response.error?.kind).toBe('refused');
    expect(response.error?.message).toContain('127.0.0.1 is a loopback address');
    expect(calls).toHaveLength(0);
    expect(receiver.state.connections).toBe(before);
  });

  it('refuses localhost by name', async () => {
    const response = await post(`https://localhost:${receiver.port}/ok`, strict);
    expect(response.error).toMatchObject({ kind: 'refused', message: expect.stringContaining('localhost') });
  });

  it('refuses a name that resolves to loopback', async () => {
    const before = receiver.state.connections;
    const { lookup } = fakeLookup('127.0.0.1');
    const response = await post(`https://evil.example:${receiver.port}/ok`, { ...strict, lookup });
    expect(response.error).toEqual({
      kind: 'refused',
      message:
        "the URL's host evil.example resolves to a loopback address: webhooks go to public addresses only (an operator can allow private ones with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true)",
    });
    expect(receiver.state.connections).toBe(before);
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const { lookup } = fakeLookup('8.8.8.8', '10.0.0.5');
    const response = await post('https://mixed.example/', { ...strict, lookup });
    // the address it resolved to is not named (the answer would map internal names)
    expect(response.error).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('a private address'),
    });
    expect(response.error?.message).not.toContain('10.0.0.5');
  });

  it('refuses an http URL without the switch, even to a public address', async () => {
    const { lookup, calls } = fakeLookup('8.8.8.8');
    const response = await post('http://hooks.example/', { ...strict, lookup });
    expect(response.error).toMatchObject({ kind: 'refused', message: expect.stringContaining('https') });
    expect(calls).toHaveLength(0);
  });

  it('refuses a name that resolves to the AWS IPv6 metadata address', async () => {
    const { lookup } = fakeLookup('fd00:ec2::254');
    const response = await post('https://meta.example/', { ...strict, lookup });
    expect(response.error).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('unique-local'),
    });
  });
});
