// `mailsvc webhooks listen` end to end (docs/webhooks.md, Developing locally): the real command
// as a child process against a listening app with a webhook runner, forwarding to a node:http
// "app" (testkit/webhook-receiver.ts) that verifies with the secret the command printed. Its
// subject is the command around the API, not the database: it runs once (vitest's service project).
import { type ChildProcess, spawn } from 'node:child_process';
import type net from 'node:net';
import os from 'node:os';
import { BIN, run } from '@mailsvc/testkit/cli-runner';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import {
  startWebhookReceiver,
  verifyAtItsTime,
  type WebhookReceiver,
} from '@mailsvc/testkit/webhook-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeEgressAgents } from '../src/webhooks/egress.js';
import { WebhookWorker } from '../src/webhooks/webhook-worker.js';

let h: Harness;
let s: Scope;
let apiUrl: string;
let app: WebhookReceiver;
let webhooks: WebhookWorker;

/** The harness's app on a real port (the command calls it over HTTP). */
async function listening(harness: Harness): Promise<string> {
  await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(harness.app.server.address() as net.AddressInfo).port}`;
}

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  s = await seedScope(h);
  apiUrl = await listening(h);
  app = await startWebhookReceiver();
  webhooks = new WebhookWorker(h.runtime.deps, {
    concurrency: 4,
    perEndpoint: 4,
    leaseMs: 300_000,
    pollMs: 20,
    timeoutMs: 5000,
    allowPrivate: true,
  });
  webhooks.start();
});
afterAll(async () => {
  await webhooks.stop();
  await app.close();
  closeEgressAgents();
  await h.close();
});

const env = (apiKey: string, url: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: os.tmpdir(),
  MAILSVC_URL: url,
  MAILSVC_API_KEY: apiKey,
});

async function ok(path: string, body: unknown) {
  const res = await postJson(h, s.apiKey, path, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

function startListen(args: string[], childEnv: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'webhooks', 'listen', ...args], {
    env: childEnv,
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    exited,
    output: () => out,
    async waitFor(pattern: RegExp, ms = 8000): Promise<RegExpExecArray> {
      const deadline = Date.now() + ms;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

describe('mailsvc webhooks listen', () => {
  it('forwards an event with a signature that verifies with the printed secret, answers with the app’s status, 502 without it, and deletes its endpoint on SIGINT', async () => {
    const listen = startListen(['--forward-to', app.url], env(s.apiKey, apiUrl));
    try {
      const secret = (await listen.waitFor(/Secret +(whsec_\S+)/))[1]!;
      const endpointId = (await listen.waitFor(/Endpoint +(whe_\S+)/))[1]!;
      const [endpoint] = (await ok('/v1/webhooks/list', {})).endpoints;
      expect(endpoint).toMatchObject({ endpointId, description: 'mailsvc webhooks listen', events: null });
      expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

      // The app fails once: the runner is told so, and tries again (5 s later on its clock).
      app.answer({ status: 503 });
      const { eventId } = await ok('/v1/webhooks/test', { endpointId });
      await listen.waitFor(new RegExp(`Z  webhook\\.test  ${eventId}  → 503\\n`));
      h.clock.advance(6000);
      await listen.waitFor(new RegExp(`Z  webhook\\.test  ${eventId}  → 204\\n`));
      expect(app.received.map((r) => r.path)).toEqual(['/hooks', '/hooks']);
      const last = app.received[1]!;
      expect(last.headers['webhook-id']).toBe(eventId);
      expect(verifyAtItsTime(last, secret)).toMatchObject({ type: 'webhook.test', data: { endpointId } });
      const { attempts } = await ok('/v1/webhooks/deliveries/list', { endpointId });
      expect(attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([204, 503]);

      await app.close();
      const second = await ok('/v1/webhooks/test', { endpointId });
      await listen.waitFor(
        new RegExp(`${second.eventId}  → 502 \\(your app could not be reached: ECONNREFUSED\\)\\n`),
      );

      listen.child.kill('SIGINT');
      expect(await listen.exited, listen.output()).toBe(0);
      expect(listen.output()).toContain(`mailsvc webhooks listen: deleted endpoint ${endpointId}`);
      expect((await ok('/v1/webhooks/list', {})).endpoints).toEqual([]);
    } finally {
      listen.child.kill('SIGKILL');
    }
  });

  it('names MAILSVC_WEBHOOK_ALLOW_PRIVATE and exits 1 when the service refuses its local URL', async () => {
    const closed = await createHarness();
    try {
      const scope = await seedScope(closed);
      const r = await run(
        ['webhooks', 'listen', '--forward-to', 'http://localhost:4000/hooks'],
        env(scope.apiKey, await listening(closed)),
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('400 webhook_url_not_allowed');
      expect(r.stderr).toContain('Start it with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true');
      expect(r.stdout).not.toContain('whsec_');
    } finally {
      await closed.close();
    }
  });
});
