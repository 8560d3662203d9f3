// MAILSVC_ALLOWED_LINK_HOSTS: links in template data must be https on a listed host, so a caller
// cannot put its own link into an email that carries your brand.
import type { TemplateVersion } from '@mailsvc/templates';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadWrapperConfig, WrapperConfigError } from '../src/config.js';
import { linkProblems } from '../src/links.js';
import { API_KEY, call, type StubCore, startStubCore, testRouter } from './helpers.js';

let stub: StubCore;
beforeAll(async () => {
  stub = await startStubCore();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.calls.length = 0;
});

const HOSTS = 'app.example.com,links.example.com';
const reset = (url: string) => ({ to: 'jane@example.com', data: { actionButton: { url } } });

describe('with MAILSVC_ALLOWED_LINK_HOSTS set', () => {
  let router: ReturnType<typeof testRouter>['router'];
  beforeAll(() => {
    ({ router } = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_ALLOWED_LINK_HOSTS: HOSTS }));
  });
  afterAll(() => router.close());

  it.each([
    'https://app.example.com/reset?t=abc',
    'https://links.example.com',
    'HTTPS://APP.EXAMPLE.COM/x',
    'https://app.example.com:8443/x',
  ])('sends a link to a listed host over https: %s', async (url) => {
    const res = await call(router, '/auth/password-reset', { body: reset(url) });
    expect(res.status, res.body).toBe(200);
    expect(stub.calls).toHaveLength(1);
  });

  it.each([
    ['another host', 'https://evil.example/reset'],
    ['a look-alike subdomain', 'https://app.example.com.evil.example/reset'],
    ['a subdomain of a listed host', 'https://x.app.example.com/reset'],
    ['plain http', 'http://app.example.com/reset'],
    ['a listed host as userinfo', 'https://app.example.com@evil.example/reset'],
    ['a listed host with a trailing dot', 'https://app.example.com./reset'],
  ])(
    'refuses %s with 400 invalid_template_data at /data/actionButton/url and sends nothing',
    async (_n, url) => {
      const res = await call(router, '/auth/password-reset', { body: reset(url) });
      expect(res.status).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_template_data',
        details: [{ path: '/data/actionButton/url' }],
      });
      expect(stub.calls).toHaveLength(0);
    },
  );

  it('refuses an unlisted link on an optional button too', async () => {
    const res = await call(router, '/billing/subscription-started', {
      body: { to: 'jane@example.com', data: { actionButton: { url: 'https://evil.example/pay' } } },
    });
    expect(res.json().error).toMatchObject({
      code: 'invalid_template_data',
      details: [{ path: '/data/actionButton/url' }],
    });
  });

  it('refuses a template version it cannot check, instead of forwarding it unchecked', async () => {
    const res = await call(router, '/auth/password-reset', {
      body: { ...reset('https://evil.example/x'), templateVersion: 'v7' },
    });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/templateVersion' }],
    });
    expect(stub.calls).toHaveLength(0);
  });
});

describe('without MAILSVC_ALLOWED_LINK_HOSTS', () => {
  it('sends an https link to any host and an http link', async () => {
    const { router } = testRouter({ MAILSVC_CORE_URL: stub.url });
    for (const url of ['https://anything.example/x', 'http://localhost:5173/reset'])
      expect((await call(router, '/auth/password-reset', { body: reset(url) })).status).toBe(200);
    await router.close();
  });

  // The template schema refuses userinfo (packages/templates); checked here because the wrapper is
  // the public face of the rule.
  it('still refuses a link with userinfo (https://paypal.com@evil.example) with 400 invalid_template_data', async () => {
    const { router } = testRouter({ MAILSVC_CORE_URL: stub.url });
    for (const url of ['https://paypal.com@evil.example/login', 'https://user:pw@app.example.com/x']) {
      const res = await call(router, '/auth/password-reset', { body: reset(url) });
      expect([res.status, res.json().error.code]).toEqual([400, 'invalid_template_data']);
      expect(res.json().error.details).toEqual([
        { path: '/data/actionButton/url', message: expect.any(String) },
      ]);
    }
    await router.close();
    expect(stub.calls).toHaveLength(0);
  });
});

describe('linkProblems', () => {
  // No catalogue template has a plain url field today; this version has one beside a button.
  const version: TemplateVersion = {
    templateId: 'synthetic',
    version: 'v1',
    status: 'published',
    category: 'transactional',
    layout: 'standard',
    required: [],
    fields: [
      { kind: 'text', name: 'heading', role: 'heading', maxLength: 100 },
      { kind: 'url', name: 'docsUrl', label: 'Docs' },
      { kind: 'actionButton', name: 'actionButton', labelDefault: 'Open', isUrlRequired: false },
    ],
  };
  const hosts = ['app.example.com'];

  it('checks url fields and the url of an action button, each at its path', () => {
    expect(
      linkProblems(
        version,
        {
          heading: 'https://evil.example',
          docsUrl: 'https://evil.example/d',
          actionButton: { url: 'http://app.example.com' },
        },
        hosts,
      ),
    ).toEqual([
      { path: '/data/docsUrl', message: expect.stringContaining('https') },
      { path: '/data/actionButton/url', message: expect.stringContaining('https') },
    ]);
    expect(
      linkProblems(version, { docsUrl: 'https://app.example.com/d', actionButton: { label: 'x' } }, hosts),
    ).toEqual([]);
  });

  it('without a host list checks nothing (the template schema has checked the URLs)', () => {
    expect(
      linkProblems(version, { docsUrl: 'http://a.example', actionButton: { url: 'http://b.example' } }, []),
    ).toEqual([]);
  });
});

describe('MAILSVC_ALLOWED_LINK_HOSTS values', () => {
  const load = (v: string) => loadWrapperConfig({ MAILSVC_API_KEY: API_KEY, MAILSVC_ALLOWED_LINK_HOSTS: v });

  it('takes comma-separated lowercase host names', () => {
    expect(load(' app.example.com, links.example.com ,').MAILSVC_ALLOWED_LINK_HOSTS).toEqual([
      'app.example.com',
      'links.example.com',
    ]);
    expect(loadWrapperConfig({ MAILSVC_API_KEY: API_KEY }).MAILSVC_ALLOWED_LINK_HOSTS).toEqual([]);
  });

  it.each([
    '*.example.com',
    'https://app.example.com',
    'app.example.com/path',
    'app.example.com:443',
    'App.Example.com',
    'user@app.example.com',
    'bücher.example',
    'app..example.com',
  ])('refuses %s, naming the key', (v) => {
    expect(() => load(v)).toThrow(WrapperConfigError);
    expect(() => load(v)).toThrow(/MAILSVC_ALLOWED_LINK_HOSTS/);
  });
});
