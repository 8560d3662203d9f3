// The dev inbox's Webhooks tab (docs/dev-inbox.md, Webhooks), on both backends: an endpoint made
// through the API points at the catcher of a listening app, the webhook runner delivers to it over
// a real socket, and the page and the JSON API show what arrived, verified with the endpoint's
// secret from the database; hand-signed requests for what the runner never sends.
import http from 'node:http';
import type net from 'node:net';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { inboxDir } from '../src/delivery/transports/capture.js';
import { devInboxRoutes } from '../src/dev/inbox/inbox-routes.js';
import { closeEgressAgents } from '../src/webhooks/egress.js';
import { WebhookWorker } from '../src/webhooks/webhook-worker.js';

const CATCH = '/dev/inbox/webhooks/catch';

let h: Harness;
let s: Scope;
let app: FastifyInstance;
let port: number;
let host: string;
let catchUrl: string;
let webhooks: WebhookWorker;

const inboxApp = (isPrivateWebhookAllowed: boolean) =>
  buildApp(h.runtime.deps, {
    extraRoutes: [
      (a) =>
        devInboxRoutes(a, {
          dir: inboxDir(h.dataDir),
          db: h.runtime.deps.db,
          clock: h.clock,
          isPrivateWebhookAllowed,
        }),
    ],
  });

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  s = await seedScope(h);
  app = await inboxApp(true);
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
  host = `127.0.0.1:${port}`;
  catchUrl = `http://${host}${CATCH}`;
  webhooks = new WebhookWorker(h.runtime.deps, {
    concurrency: 4,
    perEndpoint: 4,
    leaseMs: 300_000,
    pollMs: 3_600_000,
    timeoutMs: 5000,
    allowPrivate: true,
  });
});
afterAll(async () => {
  await webhooks.stop();
  await app.close();
  closeEgressAgents();
  await h.close();
});

async function ok(path: string, body: unknown) {
  const res = await postJson(h, s.apiKey, path, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const createEndpoint = async (url = catchUrl) => {
  const created = await ok('/v1/webhooks/create', { url, description: 'the dev inbox catcher' });
  return { id: created.endpoint.endpointId as string, secret: created.secret as string };
};

/** A request to the catcher as the runner sends one: signed with `secret` at the harness's time. */
function catchSigned(body: unknown, secret: string, opts: { path?: string; at?: Date } = {}) {
  const text = JSON.stringify(body);
  const id = `evt_${Math.random().toString(36).slice(2)}`;
  const at = opts.at ?? h.clock.now();
  return app.inject({
    method: 'POST',
    url: opts.path ?? CATCH,
    headers: {
      host,
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, text),
    },
    payload: text,
  });
}

const otherSecret = () => `whsec_${Buffer.from('not the endpoint secret, 32 byte').toString('base64')}`;

const caught = async () => {
  const res = await app.inject({ method: 'GET', url: '/dev/inbox/api/webhooks', headers: { host } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().webhooks;
};
const webhooksPage = () => app.inject({ method: 'GET', url: '/dev/inbox/webhooks', headers: { host } });

beforeEach(async () => {
  for (const e of (await ok('/v1/webhooks/list', {})).endpoints)
    await ok('/v1/webhooks/delete', { endpointId: e.endpointId });
  await app.inject({ method: 'DELETE', url: '/dev/inbox/api/webhooks', headers: { host } });
});

describe('the Webhooks tab of the dev inbox', () => {
  it('shows a test event the webhook runner delivered to the catcher, verified with its endpoint’s secret', async () => {
    const endpoint = await createEndpoint();
    const { eventId } = await ok('/v1/webhooks/test', { endpointId: endpoint.id });
    expect(await webhooks.drain()).toBe(1);

    const [one, ...rest] = await caught();
    expect(rest).toEqual([]);
    expect(one).toMatchObject({
      url: catchUrl,
      webhookId: eventId,
      type: 'webhook.test',
      verified: true,
      verification: { result: 'verified', endpointId: endpoint.id },
      payload: { type: 'webhook.test', data: { endpointId: endpoint.id } },
    });
    expect(one.headers['user-agent']).toBe('mailsvc-webhooks/1');

    const page = await webhooksPage();
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<code>webhook.test</code>');
    expect(page.body).toContain(eventId);
    expect(page.body).toContain(`<span class="badge pass">verified</span> with the secret of ${endpoint.id}`);
    // the payload pretty-printed
    expect(page.body).toContain(`  &quot;type&quot;: &quot;webhook.test&quot;,\n`);
    expect(page.body).not.toContain('id="not-reachable"');

    // the runner's attempt log keeps the catcher's verdict
    const [attempt] = (await ok('/v1/webhooks/deliveries/list', { endpointId: endpoint.id })).attempts;
    expect(attempt).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
    expect(JSON.parse(attempt.responseBody).verification.result).toBe('verified');
  });

  it('shows a request signed with another secret as not verified, naming the endpoint that points here', async () => {
    const endpoint = await createEndpoint();
    const res = await catchSigned({ type: 'message.sent', data: {} }, otherSecret());
    expect(res.statusCode).toBe(200);
    const [one] = await caught();
    expect(one.verified).toBe(false);
    expect(one.verification).toEqual({
      result: 'failed',
      reason: `not verified: no signature matches the secret of ${endpoint.id}, though it points here`,
    });
    expect((await webhooksPage()).body).toContain('<span class="badge fail">not verified</span>');
  });

  it('verifies with the previous secret while it still signs after a rotation', async () => {
    const endpoint = await createEndpoint();
    await ok('/v1/webhooks/rotate-secret', { endpointId: endpoint.id });
    await catchSigned({ type: 'message.sent', data: {} }, endpoint.secret);
    const [one] = await caught();
    expect(one.verification.result).toBe('verified');
    expect(one.verification.reason).toContain(`the previous secret of ${endpoint.id}`);
  });

  it('shows a request to a URL no endpoint has as not verified (no endpoint of this database points here)', async () => {
    const endpoint = await createEndpoint();
    await catchSigned({ type: 'message.sent', data: {} }, endpoint.secret, { path: `${CATCH}?other=1` });
    const [one] = await caught();
    expect(one.verification).toEqual({
      result: 'no_endpoint',
      reason: 'not verified (no endpoint of this database points here)',
    });
    expect((await webhooksPage()).body).toContain(
      '<span class="badge none">not verified</span> (no endpoint of this database points here)',
    );
  });

  it('escapes markup in a payload value, its type and its headers on the page', async () => {
    const endpoint = await createEndpoint();
    const markup = '</pre><script>alert(1)</script><img src=x onerror=alert(2)>';
    await app.inject({
      method: 'POST',
      url: CATCH,
      headers: { host, 'content-type': 'application/json', 'webhook-id': markup },
      payload: JSON.stringify({ type: markup, data: { note: markup } }),
    });
    await catchSigned({ type: 'message.sent', data: { note: markup } }, endpoint.secret);
    // not JSON at all: shown as received
    await app.inject({
      method: 'POST',
      url: CATCH,
      headers: { host, 'content-type': 'application/json' },
      payload: markup,
    });
    const page = (await webhooksPage()).body;
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('The body is not JSON; as received:');
    expect(page.match(/<script/g)).toHaveLength(1); // /dev/inbox/app.js
  });

  it('lists newest first in the JSON API, reads its query strictly, and DELETE empties it', async () => {
    const endpoint = await createEndpoint();
    for (const type of ['message.sent', 'message.bounced', 'message.complained'])
      await catchSigned({ type, data: {} }, endpoint.secret);
    expect((await caught()).map((c: { type: string }) => c.type)).toEqual([
      'message.complained',
      'message.bounced',
      'message.sent',
    ]);
    const limited = await app.inject({
      method: 'GET',
      url: '/dev/inbox/api/webhooks?limit=1',
      headers: { host },
    });
    expect(limited.json().webhooks).toHaveLength(1);
    for (const query of ['?limit=0', '?limit=x', '?to=jane%40example.com']) {
      const res = await app.inject({
        method: 'GET',
        url: `/dev/inbox/api/webhooks${query}`,
        headers: { host },
      });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const del = await app.inject({ method: 'DELETE', url: '/dev/inbox/api/webhooks', headers: { host } });
    expect(del.json()).toEqual({ ok: true, deleted: 3 });
    expect(await caught()).toEqual([]);
    expect((await webhooksPage()).body).toContain('No webhook received yet.');
  });

  it('tells open pages of each request over the event stream', async () => {
    const endpoint = await createEndpoint();
    const chunks: string[] = [];
    const req = http.get({ host: '127.0.0.1', port, path: '/dev/inbox/events', headers: { host } });
    try {
      await new Promise<void>((resolve, reject) => {
        req.on('response', (res) => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            chunks.push(c);
            if (chunks.join('').includes(': connected')) resolve();
          });
        });
        req.on('error', reject);
      });
      await catchSigned({ type: 'message.sent', data: {} }, endpoint.secret);
      const [one] = await caught();
      const deadline = Date.now() + 5000;
      while (!chunks.join('').includes(`event: webhook\ndata: {"id":${one.id}}\n\n`)) {
        if (Date.now() > deadline) throw new Error(`no webhook event: ${chunks.join('')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      req.destroy();
    }
  });
});

describe('who may reach the catcher', () => {
  it('refuses the catcher, the page and the API to a request not addressed to a loopback name (404, nothing kept)', async () => {
    const endpoint = await createEndpoint();
    for (const other of ['attacker.example', '10.0.0.5:3000', '127.0.0.1.nip.io']) {
      for (const [method, url] of [
        ['POST', CATCH],
        ['GET', '/dev/inbox/webhooks'],
        ['GET', '/dev/inbox/api/webhooks'],
        ['DELETE', '/dev/inbox/api/webhooks'],
      ] as const) {
        const res = await app.inject({
          method,
          url,
          headers: { host: other, 'content-type': 'application/json' },
          ...(method === 'POST' && { payload: '{"type":"message.sent"}' }),
        });
        expect(res.statusCode, `${method} ${url} Host: ${other}`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
      }
    }
    await catchSigned({ type: 'message.sent', data: {} }, endpoint.secret);
    expect(await caught()).toHaveLength(1);
  });

  it('refuses a post from another site’s page with 403, a body that is not JSON with 415 and one over 256 KiB with 413, keeping nothing', async () => {
    const crossSite = await app.inject({
      method: 'POST',
      url: CATCH,
      headers: { host, 'content-type': 'application/json', origin: 'http://attacker.example' },
      payload: '{"type":"message.sent"}',
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.code).toBe('cross_site_request');
    const form = await app.inject({
      method: 'POST',
      url: CATCH,
      headers: { host, 'content-type': 'text/plain' },
      payload: '{"type":"message.sent"}',
    });
    expect(form.statusCode).toBe(415);
    expect(form.json().error.code).toBe('unsupported_media_type');
    const huge = await app.inject({
      method: 'POST',
      url: CATCH,
      headers: { host, 'content-type': 'application/json' },
      payload: JSON.stringify({ type: 'message.sent', data: { note: 'x'.repeat(300 * 1024) } }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
    expect(await caught()).toEqual([]);
  });

  it('answers other methods on the catcher and the API with 405 and Allow', async () => {
    for (const [method, url, allow] of [
      ['GET', CATCH, 'POST'],
      ['PUT', CATCH, 'POST'],
      ['POST', '/dev/inbox/api/webhooks', 'DELETE, GET, HEAD'],
      ['DELETE', '/dev/inbox/webhooks', 'GET, HEAD'],
    ] as const) {
      const res = await app.inject({ method, url, headers: { host } });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
    }
  });
});

describe('MAILSVC_WEBHOOK_ALLOW_PRIVATE on the Webhooks tab', () => {
  it('says plainly while it is false that the runner cannot reach the catcher, with the command to start with and the URL to register', async () => {
    const closed = await inboxApp(false);
    await closed.listen({ port: 0, host: '127.0.0.1' });
    const closedPort = (closed.server.address() as net.AddressInfo).port;
    try {
      const res = await fetch(`http://127.0.0.1:${closedPort}/dev/inbox/webhooks`);
      const body = await res.text();
      expect(res.status).toBe(200);
      expect(body).toContain('id="not-reachable"');
      expect(body).toContain('MAILSVC_WEBHOOK_ALLOW_PRIVATE is false');
      expect(body).toContain('<pre>MAILSVC_WEBHOOK_ALLOW_PRIVATE=true npm start</pre>');
      expect(body).toContain(
        `<code class="catch-url">http://127.0.0.1:${closedPort}/dev/inbox/webhooks/catch</code>`,
      );
    } finally {
      await closed.close();
    }
  });

  it('shows the URL to register, the port the page was asked on, and no notice while it is true', async () => {
    const res = await fetch(`http://${host}/dev/inbox/webhooks`);
    const body = await res.text();
    expect(body).toContain(`<code class="catch-url">${catchUrl}</code>`);
    expect(body).toContain(`curl -s http://${host}/v1/webhooks/create`);
    expect(body).not.toContain('id="not-reachable"');
    expect(body).toContain('<a href="/dev/inbox/webhooks" aria-current="page">Webhooks</a>');
  });
});
