import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { devRoutes } from '../src/api/routes/dev.js';
import { devPagesFor } from '../src/api/routes/dev-access.js';
import { devInboxRoutes } from '../src/api/routes/dev-inbox.js';
import { loadConfig } from '../src/config.js';
import { inboxDir } from '../src/delivery/transports/capture.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('GET /dev/templates', () => {
  it('shows every template rendered from its fixture, as HTML or text', async () => {
    const app = await buildApp(h.runtime.deps, { extraRoutes: [devRoutes] });
    try {
      const html = await app.inject({ method: 'GET', url: '/dev/templates' });
      expect(html.statusCode).toBe(200);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.body).toContain('<h1>Templates (51)</h1>');
      expect(html.body.match(/<iframe sandbox /g)).toHaveLength(53); // 51 v1 + welcome v2 + activity-digest v2 draft
      const text = await app.inject({ method: 'GET', url: '/dev/templates?format=text' });
      expect(text.body.match(/<pre>/g)).toHaveLength(53);
      expect(text.body).toContain('POST /auth/login-code');
    } finally {
      await app.close();
    }
  });
});

describe('who may see the dev pages', () => {
  it('answers only requests addressed to a loopback name (no DNS rebinding): others get 404', async () => {
    const dir = inboxDir(h.dataDir);
    const app = await buildApp(h.runtime.deps, {
      extraRoutes: [devRoutes, (a) => devInboxRoutes(a, { dir })],
    });
    try {
      for (const url of [
        '/dev/templates',
        '/dev/inbox',
        '/dev/inbox.json',
        `/dev/inbox/msg_${'0'.repeat(26)}`,
      ]) {
        for (const host of [
          'attacker.example',
          'attacker.example:3000',
          '10.0.0.5:3000',
          'localhost.attacker.example',
        ]) {
          const res = await app.inject({ method: 'GET', url, headers: { host } });
          expect(res.statusCode, `${host} ${url}`).toBe(404);
          expect(res.json().error.code).toBe('not_found');
        }
      }
      for (const host of [
        'localhost:3000',
        '127.0.0.1:3000',
        '127.0.0.2',
        '[::1]:3000',
        'app.localhost:3000',
      ]) {
        const res = await app.inject({ method: 'GET', url: '/dev/inbox.json', headers: { host } });
        expect(res.statusCode, host).toBe(200);
      }
    } finally {
      await app.close();
    }
  });

  it('serves them from mailsvc start on a loopback bind, not on another bind unless MAILSVC_DEV_PAGES=on, and the inbox only with the capture transport', () => {
    const at = (env: Record<string, string>) => devPagesFor(loadConfig(env), 'start');
    expect(at({})).toEqual({ templates: true, inbox: true });
    expect(at({ HOST: '0.0.0.0' })).toEqual({ templates: false, inbox: false });
    expect(at({ HOST: '0.0.0.0', MAILSVC_DEV_PAGES: 'on' })).toMatchObject({
      templates: true,
      inbox: true,
      warning: expect.stringContaining('non-loopback'),
    });
    expect(at({ MAILSVC_DEV_PAGES: 'off' })).toEqual({ templates: false, inbox: false });
    expect(at({ MAILSVC_SMTP_URL: 'smtp://relay.example:587' })).toEqual({ templates: true, inbox: false });
    expect(devPagesFor(loadConfig({}), 'api')).toEqual({ templates: false, inbox: false });
  });
});
