import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import vm from 'node:vm';
import { getFixture, getTemplate } from '@mailsvc/templates';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import type { FastifyInstance } from 'fastify';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/api/app.js';
import type { Db } from '../src/db/schema.js';
import { generateDkimKeyPair, parseDkimKey, signMessage } from '../src/delivery/dkim.js';
import { captureTransport, inboxDir, inboxWatcherCount } from '../src/delivery/transports/capture.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { FRAME_SANDBOX } from '../src/dev/inbox/inbox-page.js';
import { devInboxRoutes } from '../src/dev/inbox/inbox-routes.js';
import { INBOX_SCRIPT } from '../src/dev/inbox/inbox-script.js';
import { newId } from '../src/ids.js';

let h: Harness;
let app: FastifyInstance;
let dir: string;
let s: Scope;
let worker: DeliveryWorker;

beforeAll(async () => {
  h = await createHarness();
  dir = inboxDir(h.dataDir);
  app = await buildApp(h.runtime.deps, {
    extraRoutes: [(a) => devInboxRoutes(a, { dir, db: h.runtime.deps.db })],
  });
  s = await seedScope(h);
  worker = new DeliveryWorker(h.runtime.deps, captureTransport(dir), {
    concurrency: 4,
    leaseMs: 300_000,
    pollMs: 3_600_000,
  });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await h.close();
});

interface Mail {
  to: string;
  subject: string;
  html: string;
  text: string;
  templateId?: string;
  tenantId?: string;
  projectId?: string;
  projectName?: string;
  tenantName?: string;
  headers?: Record<string, string>;
}

let clockMs = Date.parse('2026-11-22T10:15:30.123Z');

async function compose(mail: Mail, messageId: string): Promise<Buffer> {
  return new MailComposer({
    from: '"Acme App" <notifications@mailsvc.test>',
    to: mail.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    messageId: `<${messageId}@mailsvc.test>`,
    headers: { 'X-Mailsvc-Message-Id': messageId, ...mail.headers },
  })
    .compile()
    .build();
}

/** Builds a real MIME message and delivers it through the capture transport. */
async function capture(
  mail: Mail,
  rawOverride?: (messageId: string) => Buffer | Promise<Buffer>,
): Promise<string> {
  clockMs += 1000;
  const messageId = newId('msg', clockMs);
  const raw = rawOverride ? await rawOverride(messageId) : await compose(mail, messageId);
  const transport = captureTransport(dir, () => new Date(clockMs));
  const outcome = await transport.send({
    messageId,
    envelope: { from: `bounces+${messageId}@bounces.mailsvc.test`, to: mail.to },
    raw,
    meta: {
      templateId: mail.templateId ?? 'mention',
      subject: mail.subject,
      ...(mail.tenantId && {
        tenantId: mail.tenantId,
        projectId: mail.projectId ?? 'prj_X',
        environmentId: 'env_X',
      }),
      ...(mail.projectName && { projectName: mail.projectName }),
      ...(mail.tenantName && { tenantName: mail.tenantName }),
    },
  });
  expect(outcome.kind).toBe('sent');
  return messageId;
}

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers });
const del = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'DELETE', url, headers });
const api = async (url: string) => {
  const res = await get(url);
  return { status: res.statusCode, body: res.json() };
};
const clearInbox = () => del('/dev/inbox/api/messages');

async function until(predicate: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Writes an index entry (and a .eml) straight into the inbox, as a hand edit or an old version would. */
async function writeStored(entry: (id: string) => unknown, mail?: Mail): Promise<string> {
  clockMs += 1000;
  const id = newId('msg', clockMs);
  fs.mkdirSync(dir, { recursive: true });
  if (mail) fs.writeFileSync(path.join(dir, `${id}.eml`), await compose(mail, id));
  fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(entry(id)));
  return id;
}

async function sendAndDeliver(body: Record<string, unknown>, apiKey = s.apiKey): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  expect(res.statusCode, res.body).toBe(200);
  await worker.drain();
  return res.json().messageId;
}

describe('GET /dev/inbox', () => {
  beforeEach(async () => {
    await clearInbox();
  });

  it('shows an empty inbox before anything was captured', async () => {
    const res = await get('/dev/inbox');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No messages yet');
  });

  it('lists captured messages newest first with full recipient addresses, template and tenant', async () => {
    const first = await capture({
      to: 'jane.doe@example.com',
      subject: 'Your login code',
      html: '<p>123456</p>',
      text: '123456',
      templateId: 'login-code',
      tenantId: 'ten_01JANE',
      projectName: 'Jane’s App',
    });
    const second = await capture({
      to: 'bob.smith@example.org',
      subject: 'Grüße, Zoë — 你好',
      html: '<p>hi</p>',
      text: 'hi',
    });
    const res = await get('/dev/inbox');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('>jane.doe@example.com</a>');
    expect(res.body).toContain('>bob.smith@example.org</a>');
    expect(res.body).not.toContain('j***@');
    expect(res.body).toContain('Your login code');
    expect(res.body).toContain('Grüße, Zoë — 你好');
    expect(res.body).toContain('<span class="tag">login-code</span>');
    expect(res.body).toContain('ten_01JANE');
    expect(res.body).toContain('Jane’s App');
    expect(res.body.indexOf(`/dev/inbox/${second}`)).toBeLessThan(res.body.indexOf(`/dev/inbox/${first}`));
    // Without JavaScript it refreshes itself; with it, app.js follows the event stream.
    expect(res.body).toContain('<noscript><meta http-equiv="refresh" content="5"></noscript>');
    expect(res.body).toContain('<script src="/dev/inbox/app.js" defer></script>');

    const json = await get('/dev/inbox.json');
    expect(json.json().messages[0]).toEqual({
      messageId: second,
      capturedAt: expect.any(String),
      to: 'bob.smith@example.org',
      toMasked: 'b***@example.org',
      templateId: 'mention',
      subject: 'Grüße, Zoë — 你好',
    });
  });

  it('sends a CSP that allows only its own script, no inline script, and forms only to itself', async () => {
    await capture({ to: 'csp@example.com', subject: 'csp', html: '<p>x</p>', text: 'x' });
    const res = await get('/dev/inbox');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.body.match(/<script\b[^>]*>/g)).toEqual(['<script src="/dev/inbox/app.js" defer>']);

    const js = await get('/dev/inbox/app.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect(js.body).toContain("new EventSource('/dev/inbox/events')");
    expect(js.body).toContain("method: 'DELETE'");
  });

  it('filters by recipient (full address, any case), template, tenant and search, on the server', async () => {
    await capture({
      to: 'Ann@Example.com',
      subject: 'A1',
      html: '',
      text: 'a',
      templateId: 'login-code',
      tenantId: 'ten_A',
    });
    await capture({ to: 'ann@example.com.evil', subject: 'A2', html: '', text: 'a', tenantId: 'ten_B' });
    await capture({
      to: 'bo@example.com',
      subject: 'Welcome Bo',
      html: '',
      text: 'b',
      templateId: 'welcome',
      tenantId: 'ten_A',
    });
    const subjects = (body: string) =>
      [...body.matchAll(/<td class="subject"><a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]);
    expect(subjects((await get('/dev/inbox?to=ANN%40example.com')).body)).toEqual(['A1']);
    expect(subjects((await get('/dev/inbox?template=welcome')).body)).toEqual(['Welcome Bo']);
    expect(subjects((await get('/dev/inbox?template=auth%2Flogin-code')).body)).toEqual(['A1']);
    expect(subjects((await get('/dev/inbox?tenant=ten_A')).body)).toEqual(['Welcome Bo', 'A1']);
    expect(subjects((await get('/dev/inbox?q=welcome')).body)).toEqual(['Welcome Bo']);
    expect(subjects((await get('/dev/inbox?q=ann%40')).body)).toEqual(['A2', 'A1']);
    const filtered = (await get('/dev/inbox?tenant=ten_A&template=welcome')).body;
    expect(filtered).toContain('1 of 3 match.');
    expect(filtered).toContain('<option value="welcome" selected>welcome</option>');
    expect((await get('/dev/inbox?to=nobody%40example.com')).body).toContain(
      'No message matches these filters.',
    );
  });

  it('shows the project and the tenant separately, each with its own name, and filters by either', async () => {
    const demo = await capture({
      to: 'ada@example.com',
      subject: 'Demo mail',
      html: '',
      text: 'x',
      tenantId: 'ten_DEMO',
      tenantName: 'Demo',
      projectId: 'prj_DEMOAPP',
      projectName: 'Demo App',
    });
    const other = await capture({
      to: 'ada@example.com',
      subject: 'Other project',
      html: '',
      text: 'x',
      tenantId: 'ten_DEMO',
      tenantName: 'Demo',
      projectId: 'prj_SHOP',
      projectName: 'Shop',
    });
    // Captured before the tenant's name was recorded: the tenant shows as its id.
    const older = await capture({
      to: 'bo@example.com',
      subject: 'Older entry',
      html: '',
      text: 'x',
      tenantId: 'ten_OLD',
      projectId: 'prj_OLDAPP',
      projectName: 'Old App',
    });

    const meta = (body: string) =>
      Object.fromEntries([...body.matchAll(/<dt>([^<]*)<\/dt><dd>(.*?)<\/dd>/g)].map((m) => [m[1], m[2]]));
    const page = meta((await get(`/dev/inbox/${demo}`)).body);
    expect(page.Project).toBe('Demo App · <span class="id">prj_DEMOAPP</span>');
    expect(page.Tenant).toBe('Demo · <span class="id">ten_DEMO</span>');
    expect(meta((await get(`/dev/inbox/${older}`)).body).Tenant).toBe('<span class="id">ten_OLD</span>');

    const list = (await get('/dev/inbox')).body;
    const select = (name: string) => new RegExp(`<select name="${name}">(.*?)</select>`).exec(list)![1]!;
    expect(select('tenant')).toBe(
      '<option value="" selected>Any tenant</option><option value="ten_DEMO">Demo (ten_DEMO)</option><option value="ten_OLD">ten_OLD</option>',
    );
    expect(select('project')).toBe(
      '<option value="" selected>Any project</option><option value="prj_DEMOAPP">Demo App (prj_DEMOAPP)</option><option value="prj_OLDAPP">Old App (prj_OLDAPP)</option><option value="prj_SHOP">Shop (prj_SHOP)</option>',
    );
    const row = new RegExp(`<tr data-id="${demo}">[\\s\\S]*?<td class="tenant">(.*?)</td>`).exec(list)![1]!;
    expect(row).toContain('>Demo App</a>');
    expect(row).toContain('href="/dev/inbox?project=prj_DEMOAPP"');
    expect(row).toContain('<span class="muted">Tenant</span> <a href="/dev/inbox?tenant=ten_DEMO"');
    expect(row).toContain('>Demo</a>');

    const subjects = (body: string) =>
      [...body.matchAll(/<td class="subject"><a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]);
    expect(subjects((await get('/dev/inbox?project=prj_shop')).body)).toEqual(['Other project']);
    expect(subjects((await get('/dev/inbox?tenant=ten_DEMO')).body)).toEqual(['Other project', 'Demo mail']);
    expect((await get('/dev/inbox?project=prj_SHOP')).body).toContain(
      '<option value="prj_SHOP" selected>Shop (prj_SHOP)</option>',
    );

    const ids = async (q: string) =>
      (await api(`/dev/inbox/api/messages${q}`)).body.messages.map((m: { id: string }) => m.id);
    expect(await ids('?project=prj_SHOP')).toEqual([other]);
    expect(await ids('?project=PRJ_DEMOAPP&tenant=ten_DEMO')).toEqual([demo]);
    expect((await api('/dev/inbox/api/messages/latest?project=prj_OLDAPP')).body.message).toMatchObject({
      id: older,
      tenantId: 'ten_OLD',
      projectId: 'prj_OLDAPP',
    });
  });

  it("records the tenant's name at delivery, apart from the project's", async () => {
    const messageId = await sendAndDeliver({
      templateId: 'login-code',
      to: 'names@example.com',
      data: { code: '123456' },
    });
    const entry = JSON.parse(fs.readFileSync(path.join(dir, `${messageId}.json`), 'utf8'));
    expect(entry).toMatchObject({
      tenantId: s.tenantId,
      tenantName: 'Acme',
      projectId: s.projectId,
      projectName: 'Acme App',
      environmentId: s.environmentId,
    });
    const body = (await get(`/dev/inbox/${messageId}`)).body;
    expect(body).toContain(`<dt>Project</dt><dd>Acme App · <span class="id">${s.projectId}</span></dd>`);
    expect(body).toContain(`<dt>Tenant</dt><dd>Acme · <span class="id">${s.tenantId}</span></dd>`);
  });

  it('ignores query parameters it does not understand (the page is lenient; the API is not)', async () => {
    for (const q of [
      '?limit=-1&__proto__[x]=1',
      '?to[]=a&to[]=b',
      '?template=%00',
      `?q=${'x'.repeat(400)}`,
    ]) {
      const res = await get(`/dev/inbox${q}`);
      expect(res.statusCode, q).toBe(200);
    }
  });

  it('reads only the index entries it shows, not the whole inbox; counts from the directory', async () => {
    for (let i = 0; i < 500; i++)
      await writeStored((id) => ({
        messageId: id,
        capturedAt: new Date(clockMs).toISOString(),
        to: `bulk${i}@example.com`,
        templateId: i === 0 ? 'oldest-only' : 'welcome',
        subject: `bulk ${i}`,
      }));
    const reads = vi.spyOn(fsp, 'readFile');
    const indexReads = () => reads.mock.calls.filter(([file]) => String(file).endsWith('.json')).length;
    try {
      const page = await get('/dev/inbox');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<span class="muted" id="count">(500)</span>');
      expect(page.body).toContain('The newest 200 of 500.');
      expect(page.body).toContain('>bulk499@example.com</a>');
      expect(page.body).not.toContain('>bulk299@example.com</a>');
      // The page and one more to know there are more, read 64 at a time: far from 500.
      expect(indexReads()).toBeLessThanOrEqual(256);

      reads.mockClear();
      const filtered = await get('/dev/inbox?template=welcome');
      expect(filtered.body).toContain('More than 200 of 500 match; the newest 200 are shown.');
      expect(indexReads()).toBeLessThanOrEqual(256);
      // The filter's choices are those of the newest messages (and the one selected).
      expect(filtered.body).not.toContain('oldest-only');

      // A filter that matches only the oldest message reads as far as it must.
      const oldest = await get('/dev/inbox?template=oldest-only');
      expect(oldest.body).toContain('1 of 500 match.');
      expect(oldest.body).toContain('>bulk0@example.com</a>');
    } finally {
      reads.mockRestore();
    }
  });
});

describe('an index entry that is not whole (edited by hand, cut short)', () => {
  beforeEach(async () => {
    await clearInbox();
  });

  const whole = (id: string) => ({
    messageId: id,
    capturedAt: new Date(clockMs).toISOString(),
    to: 'broken@example.com',
    templateId: 'welcome',
    subject: 'broken',
  });
  it.each<[string, (id: string) => unknown]>([
    ['only a messageId', (id) => ({ messageId: id })],
    ['a number for to', (id) => ({ ...whole(id), to: 42 })],
    ['no capturedAt', (id) => ({ ...whole(id), capturedAt: undefined })],
    ['a number for tenantId', (id) => ({ ...whole(id), tenantId: 7 })],
    ['an array for projectName', (id) => ({ ...whole(id), projectName: ['x'] })],
  ])('with %s, is skipped by the list and the API; its page shows the .eml', async (_name, entry) => {
    const good = await capture({ to: 'good@example.com', subject: 'good', html: '', text: 'good' });
    const bad = await writeStored(entry, {
      to: 'broken@example.com',
      subject: 'Read from the eml',
      html: '<p>eml</p>',
      text: 'eml',
    });

    const list = await get('/dev/inbox');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.body).toContain(`/dev/inbox/${good}`);
    expect(list.body).not.toContain(`/dev/inbox/${bad}`);

    const json = await get('/dev/inbox.json');
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json().messages.map((m: { messageId: string }) => m.messageId)).toEqual([good]);

    const page = await get(`/dev/inbox/${bad}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('<h1>Read from the eml</h1>');
    expect(page.body).toContain('<dt>To</dt><dd>broken@example.com</dd>');

    for (const q of ['?to=broken%40example.com', '?to=good%40example.com', '?tenant=ten_X', '']) {
      const res = await get(`/dev/inbox/api/messages${q}`);
      expect(res.statusCode, `${q} ${res.body}`).toBe(200);
      expect(res.json().messages.map((m: { id: string }) => m.id)).not.toContain(bad);
    }
    expect((await api('/dev/inbox/api/messages?to=good%40example.com')).body.messages[0].id).toBe(good);
    expect((await get(`/dev/inbox/api/messages/${bad}`)).statusCode).toBe(404);
    expect((await get('/dev/inbox/api/messages/latest?to=broken%40example.com')).statusCode).toBe(404);
  });

  it('accepts null for the optional fields', async () => {
    const id = await writeStored(
      (mid) => ({ ...whole(mid), tenantId: null, projectId: null, environmentId: null, projectName: null }),
      { to: 'broken@example.com', subject: 'nulls', html: '', text: 'x' },
    );
    expect((await api(`/dev/inbox/api/messages/${id}`)).body.message).toMatchObject({ id, tenantId: null });
    expect((await get('/dev/inbox')).body).toContain(`/dev/inbox/${id}`);
  });
});

// app.js, run against a stand-in for the few browser objects it touches.
function runInboxScript(page: { page: 'list' } | { page: 'message'; id: string }) {
  const streams: string[] = [];
  const fetches: [string, RequestInit | undefined][] = [];
  const listeners: Record<string, (() => unknown)[]> = {};
  const gone = { hidden: true };
  const document = {
    visibilityState: 'visible',
    querySelector: (sel: string) => (sel === 'main' ? { dataset: page } : null),
    querySelectorAll: () => [],
    getElementById: (id: string) => (id === 'gone' && page.page === 'message' ? gone : null),
    addEventListener: (type: string, fn: () => unknown) => {
      listeners[type] = [...(listeners[type] ?? []), fn];
    },
  };
  class EventSource {
    constructor(url: string) {
      streams.push(url);
    }
    addEventListener() {}
    close() {}
  }
  let status = 200;
  vm.runInNewContext(INBOX_SCRIPT, {
    document,
    window: { EventSource },
    EventSource,
    addEventListener: () => {},
    location: { hash: '', href: 'http://localhost/dev/inbox' },
    fetch: async (url: string, init?: RequestInit) => {
      fetches.push([url, init]);
      return { ok: status === 200, status };
    },
  });
  return {
    streams,
    fetches,
    gone,
    setStatus: (s: number) => {
      status = s;
    },
    becomeVisible: async () => {
      for (const fn of listeners.visibilitychange ?? []) fn();
      await new Promise((r) => setTimeout(r, 10));
    },
  };
}

describe('/dev/inbox/app.js', () => {
  it('opens an event stream on the list only; a message page opens none (6 connections per host)', () => {
    expect(runInboxScript({ page: 'list' }).streams).toEqual(['/dev/inbox/events']);
    expect(runInboxScript({ page: 'message', id: 'msg_X' }).streams).toEqual([]);
  });

  it('a message page asks whether its message is still there when it is shown again', async () => {
    const page = runInboxScript({ page: 'message', id: 'msg_X' });
    await page.becomeVisible();
    expect(page.fetches).toEqual([['/dev/inbox/msg_X/raw', { method: 'HEAD', cache: 'no-store' }]]);
    expect(page.gone.hidden).toBe(true);
    page.setStatus(404);
    await page.becomeVisible();
    expect(page.gone.hidden).toBe(false);

    // What it asks answers HEAD: 200 while the message is there, 404 once deleted.
    const id = await capture({ to: 'head@example.com', subject: 'head', html: '', text: 'x' });
    expect((await app.inject({ method: 'HEAD', url: `/dev/inbox/${id}/raw` })).statusCode).toBe(200);
    await del(`/dev/inbox/api/messages/${id}`);
    expect((await app.inject({ method: 'HEAD', url: `/dev/inbox/${id}/raw` })).statusCode).toBe(404);
  });
});

describe('GET /dev/inbox/:id', () => {
  it('shows the message in tabs: HTML (sandboxed frame, links to a new tab), Text, Headers, Raw, Checks', async () => {
    const id = await capture({
      to: 'Reader@Example.com',
      subject: 'Héllo wörld ✓',
      html: '<!doctype html><html><head><title>t</title></head><body><h1 style="color:#123">Hello &amp; welcome</h1><a href="https://app.example.com/x?a=1&amp;b=2">Open the app</a></body></html>',
      text: 'Hello & welcome\n\nSecond paragraph',
    });
    const res = await get(`/dev/inbox/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.body).toContain('<h1>Héllo wörld ✓</h1>');
    expect(res.body).toContain('<dt>To</dt><dd>Reader@Example.com</dd>');
    for (const tab of ['html', 'text', 'headers', 'raw', 'checks']) {
      expect(res.body).toContain(`<a href="#${tab}">`);
      expect(res.body).toContain(`<section class="panel" id="${tab}"`);
    }
    // The frame may open its links in a new tab and nothing else.
    const frames = res.body.match(/<iframe [^>]*>/g) ?? [];
    expect(frames).toHaveLength(1);
    expect(frames[0]).toContain(`sandbox="allow-popups allow-popups-to-escape-sandbox"`);
    expect(FRAME_SANDBOX).not.toMatch(/allow-scripts|allow-same-origin|allow-top-navigation|allow-forms/);
    expect(res.body).not.toMatch(/allow-scripts|allow-same-origin/);
    expect(res.body).toContain(
      'srcdoc="&lt;!doctype html&gt;&lt;html&gt;&lt;head&gt;&lt;base target=&quot;_blank&quot;&gt;&lt;meta name=&quot;referrer&quot; content=&quot;no-referrer&quot;&gt;&lt;title&gt;t&lt;/title&gt;',
    );
    expect(res.body).toContain('Hello &amp;amp; welcome');
    expect(res.body).toContain('<pre>Hello &amp; welcome\n\nSecond paragraph</pre>');
    expect(res.body).toMatch(/<th scope="row">X-Mailsvc-Message-ID<\/th><td>msg_/i);
    expect(res.body).toMatch(/<th scope="row">Return-Path<\/th><td>&lt;bounces\+msg_/);
    expect(res.body).toMatch(/<th scope="row">Subject<\/th><td>=\?UTF-8\?/);
    expect(res.body).toContain('Content-Type: multipart/alternative');
    expect(res.body).toContain(`href="/dev/inbox/${id}/raw"`);
  });

  it('adds the base target to a frame document without a head', async () => {
    const id = await capture({ to: 'nohead@example.com', subject: 'nohead', html: '<p>bare</p>', text: '' });
    const res = await get(`/dev/inbox/${id}`);
    expect(res.body).toContain('srcdoc="&lt;base target=&quot;_blank&quot;&gt;');
  });

  it('Checks: an unsigned message says so; SPF is not applicable; links, size, parts and unsubscribe headers', async () => {
    const id = await capture({
      to: 'checks@example.com',
      subject: 'Checks',
      html: '<p>Hi</p><a href="https://app.example.com/settings">Notification settings</a> <a href="https://mail.example.test/u/tok">Unsubscribe</a>',
      text: 'Hi',
      headers: {
        'List-Unsubscribe': '<https://mail.example.test/u/tok>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    const body = (await get(`/dev/inbox/${id}`)).body;
    const checks = body.slice(body.indexOf('<section class="panel" id="checks"'));
    expect(checks).toContain('<dt>DKIM</dt><dd><span class="badge none">none</span> Not signed.');
    expect(checks).toContain('<dt>SPF</dt><dd><span class="badge na">not applicable</span>');
    expect(checks).toContain('(<code>bounces.mailsvc.test</code>)');
    expect(checks).toContain(
      'List-Unsubscribe: present: <code>&lt;https://mail.example.test/u/tok&gt;</code>',
    );
    expect(checks).toContain('List-Unsubscribe-Post: present: <code>List-Unsubscribe=One-Click</code>');
    expect(checks).toContain('<dt>Links (2)</dt>');
    expect(checks).toContain(
      '<li><strong>Notification settings</strong> → <a href="https://app.example.com/settings" target="_blank" rel="noopener noreferrer">',
    );
    const raw = fs.readFileSync(path.join(dir, `${id}.eml`));
    expect(checks).toContain(`<dt>Size</dt><dd>${raw.length.toLocaleString('en-US')} bytes;`);
    expect(checks).toContain('<dt>Parts</dt><dd>2 parts<ul><li><code>multipart/alternative</code>');
    expect(checks).toContain('<li><code>text/plain</code>');
    expect(checks).toContain('<li><code>text/html</code>');
  });

  it('Checks: a signature verifies against the sending domain’s public key from the database', async () => {
    const t = await seedScope(h);
    const domain = `mail-${Date.now()}.acme-inbox.test`;
    await h.admin('domains.add', { domain, project: t.projectId });
    await h.admin('domains.set-status', { domain, status: 'verified' });
    const messageId = await sendAndDeliver(
      {
        templateId: 'mention',
        to: 'signed@example.com',
        data: getFixture(getTemplate('mention', 'v1').version),
      },
      t.apiKey,
    );
    const checks = (await get(`/dev/inbox/${messageId}`)).body.split('id="checks"')[1]!;
    expect(checks).toContain(
      '<dt>DKIM</dt><dd><span class="badge pass">pass</span> Verified with the public key of',
    );
    expect(checks).toContain(`._domainkey.${domain} from the database`);
    expect(checks).toContain('List-Unsubscribe: present (covered by DKIM)');
    expect(checks).toContain('List-Unsubscribe-Post: present (covered by DKIM)');
  });

  it('Checks: a signature whose key the database does not hold is reported as unverifiable', async () => {
    const pair = generateDkimKeyPair(new Date());
    const key = parseDkimKey('unknown-domain.test', pair.selector, pair.privateKeyPem);
    const id = await capture(
      { to: 'stray@example.com', subject: 'stray', html: '<p>x</p>', text: 'x' },
      async (mid) =>
        signMessage(
          await compose({ to: 'stray@example.com', subject: 'stray', html: '<p>x</p>', text: 'x' }, mid),
          key,
        ),
    );
    const checks = (await get(`/dev/inbox/${id}`)).body.split('id="checks"')[1]!;
    expect(checks).toContain('Signed by unknown-domain.test with selector');
    expect(checks).toContain('but the database has no public key for');
  });

  it('Checks: a DKIM-Signature the verifier cannot parse is reported as such, not as the database', async () => {
    const mail = { to: 'unparsable@example.com', subject: 'unparsable', html: '<p>x</p>', text: 'x' };
    const id = await capture(mail, async (mid) =>
      Buffer.concat([
        Buffer.from('DKIM-Signature: v=1; a=rsa-sha256; c=/; d=x.test; s=s1; h=from; bh=abc; b=abc\r\n'),
        await compose(mail, mid),
      ]),
    );
    const res = await get(`/dev/inbox/${id}`);
    expect(res.statusCode).toBe(200);
    const checks = res.body.split('id="checks"')[1]!;
    expect(checks).toContain(
      '<dt>DKIM</dt><dd><span class="badge fail">temperror</span> Not checked: the DKIM verifier could not read this message (Unknown header canonicalization); reloading will not change that.',
    );
    expect(checks).not.toContain('database');
  });

  it('Checks: a database that does not answer is reported as such, not as a missing key', async () => {
    const brokenDb = {
      selectFrom() {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
    } as unknown as Db;
    const other = await buildApp(h.runtime.deps, {
      extraRoutes: [(a) => devInboxRoutes(a, { dir, db: brokenDb })],
    });
    try {
      const pair = generateDkimKeyPair(new Date());
      const key = parseDkimKey('db-away.test', pair.selector, pair.privateKeyPem);
      const mail = { to: 'dbaway@example.com', subject: 'db away', html: '<p>x</p>', text: 'x' };
      const id = await capture(mail, async (mid) => signMessage(await compose(mail, mid), key));
      const checks = (await other.inject({ method: 'GET', url: `/dev/inbox/${id}` })).body.split(
        'id="checks"',
      )[1]!;
      expect(checks).toContain(
        '<dt>DKIM</dt><dd><span class="badge fail">temperror</span> Not checked: the database did not answer when asked for the sending domain’s public key; reload to retry.',
      );
      expect(checks).not.toContain('has no public key');
    } finally {
      await other.close();
    }
  });

  it('escapes a hostile message everywhere: subject, headers, HTML part', async () => {
    const evil = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const id = await capture({
      to: 'victim@example.com',
      subject: evil,
      html: `<p>hi</p><script>alert(3)</script><img src=x onerror="alert(4)"><a href="javascript:alert(5)">x</a>`,
      text: `text ${evil}`,
      headers: { 'X-Evil': evil },
    });
    for (const url of [`/dev/inbox/${id}`, '/dev/inbox']) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toMatch(/<script(?! src="\/dev\/inbox\/app\.js" defer>)/);
      expect(res.body).not.toContain('<img');
      expect(res.body).toContain(
        '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;',
      );
    }
    const page = (await get(`/dev/inbox/${id}`)).body;
    expect(page).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(page).toContain('<th scope="row">X-Evil</th>');
    // A javascript: link is listed, never made clickable.
    expect(page).toContain('<li><strong>x</strong> → <code>javascript:alert(5)</code></li>');
    expect(page).not.toContain('href="javascript:');
  });

  it('escapes header names and values written raw, without encoded words', async () => {
    const evil = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const id = await capture({ to: 'victim@example.com', subject: evil, html: '', text: '' }, (messageId) =>
      Buffer.from(
        [
          `From: "<b>Mallory</b>" <mallory@example.com>`,
          'To: victim@example.com',
          `Subject: ${evil}`,
          `X-Evil: ${evil}`,
          `Message-ID: <${messageId}@example.com>`,
          'Content-Type: text/html; charset=utf-8',
          '',
          `<p>${evil}</p>`,
          '',
        ].join('\r\n'),
      ),
    );
    const res = await get(`/dev/inbox/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<img');
    expect(res.body).not.toContain('<b>Mallory');
    expect(res.body).toContain(
      '<th scope="row">X-Evil</th><td>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</td>',
    );
    expect(res.body).toContain(
      '<h1>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</h1>',
    );
    expect(res.body).toContain('&lt;p&gt;&quot;&gt;&lt;img src=x');
  });

  it('downloads the raw message with the exact captured bytes', async () => {
    const id = await capture({ to: 'raw@example.com', subject: 'Ünïcode raw', html: '<b>x</b>', text: 'x' });
    const res = await get(`/dev/inbox/${id}/raw`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('message/rfc822');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${id}.eml"`);
    expect(res.rawPayload.equals(fs.readFileSync(path.join(dir, `${id}.eml`)))).toBe(true);
    expect(res.rawPayload.subarray(0, 13).toString()).toBe('Return-Path: ');
  });

  it.each([
    ['an unknown id', 'msg_00000000000000000000000000'],
    ['a malformed id', 'msg_..%2F..%2Fetc'],
    ['a path outside the inbox', '..%2F..%2Fmailsvc.lock'],
    ['an id in lower case', 'msg_0000000000000000000000000a'],
  ])('answers 404 for %s', async (_name, id) => {
    for (const url of [`/dev/inbox/${id}`, `/dev/inbox/${id}/raw`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Message not found');
    }
  });
});

describe('the JSON API for end-to-end tests', () => {
  beforeEach(async () => {
    await clearInbox();
  });

  it('gives the login code sent through POST /v1/send, once the worker delivered it: GET /dev/inbox/api/messages/latest?to=', async () => {
    const messageId = await sendAndDeliver({
      templateId: 'login-code',
      to: 'Sign.Up@Example.com',
      data: { code: '482913' },
    });
    const { status, body } = await api('/dev/inbox/api/messages/latest?to=sign.up%40EXAMPLE.com');
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      message: {
        id: messageId,
        capturedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        from: expect.stringContaining('@mailsvc.test'),
        to: 'sign.up@example.com',
        subject: expect.any(String),
        templateId: 'login-code',
        tenantId: s.tenantId,
        projectId: s.projectId,
        text: expect.stringContaining('\n    482913\n'),
        html: expect.stringContaining('<span class="code"'),
        links: expect.any(Array),
        codes: ['482913'],
      },
    });
  });

  it('reads codes from the code block only, never from digits in prose', async () => {
    await sendAndDeliver({
      templateId: 'verification-code',
      to: 'prose@example.com',
      data: { code: 'AB-12 34' },
    });
    await capture({
      to: 'prose@example.com',
      subject: 'Order 123456 shipped on 2026-11-22',
      html: '<p>Order 123456, total 99.50, call 5551234.</p>',
      text: 'Order 123456, total 99.50.\n  Tracking: 998877',
    });
    const { body } = await api('/dev/inbox/api/messages?to=prose%40example.com');
    expect(body.messages.map((m: { codes: string[] }) => m.codes)).toEqual([[], ['AB-12 34']]);
  });

  it('lists newest first with links and their text, and filters by to, template, tenant and since', async () => {
    const a = await capture({
      to: 'ann@example.com',
      subject: 'one',
      html: '<a href="https://app.example.com/a?x=1&amp;y=2"><b>Open</b>  it</a>',
      text: 'one',
      templateId: 'magic-link',
      tenantId: 'ten_A',
    });
    const sinceB = new Date(clockMs + 1000).toISOString();
    const b = await capture({
      to: 'ANN@example.com',
      subject: 'two',
      html: '',
      text: 'two',
      tenantId: 'ten_B',
    });
    const c = await capture({ to: 'ann@example.com.other', subject: 'three', html: '', text: 'three' });
    const ids = async (q: string) =>
      (await api(`/dev/inbox/api/messages${q}`)).body.messages.map((m: { id: string }) => m.id);
    expect(await ids('')).toEqual([c, b, a]);
    expect(await ids('?to=Ann%40Example.com')).toEqual([b, a]);
    expect(await ids('?to=ann')).toEqual([]);
    expect(await ids('?template=magic-link')).toEqual([a]);
    expect(await ids('?template=auth%2Fmagic-link')).toEqual([a]);
    expect(await ids('?tenant=ten_B')).toEqual([b]);
    expect(await ids(`?since=${encodeURIComponent(sinceB)}`)).toEqual([c, b]);
    expect(await ids('?limit=2')).toEqual([c, b]);
    expect(await ids('?to=ann%40example.com&limit=1')).toEqual([b]);
    const first = (await api(`/dev/inbox/api/messages/${a}`)).body.message;
    expect(first.links).toEqual([{ url: 'https://app.example.com/a?x=1&y=2', text: 'Open it' }]);
    expect(first.tenantId).toBe('ten_A');
    expect((await api(`/dev/inbox/api/messages/${c}`)).body.message.tenantId).toBeNull();
    expect(
      (await api('/dev/inbox/api/messages/latest?to=ann%40example.com&template=magic-link')).body.message.id,
    ).toBe(a);
  });

  it('reads messages captured before tenant ids were recorded (old index entries)', async () => {
    clockMs += 1000;
    const id = newId('msg', clockMs);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, `${id}.eml`),
      await compose({ to: 'old@example.com', subject: 'old', html: '', text: 'old' }, id),
    );
    fs.writeFileSync(
      path.join(dir, `${id}.json`),
      JSON.stringify({
        messageId: id,
        capturedAt: new Date(clockMs).toISOString(),
        to: 'old@example.com',
        templateId: 'welcome',
        subject: 'old',
      }),
    );
    const { body } = await api('/dev/inbox/api/messages/latest?to=old%40example.com');
    expect(body.message).toMatchObject({ id, tenantId: null, templateId: 'welcome', subject: 'old' });
    expect((await api('/dev/inbox/api/messages?tenant=ten_A')).body.messages).toEqual([]);
    expect((await get('/dev/inbox')).body).toContain('>old@example.com</a>');
  });

  it.each([
    ['0', 'limit'],
    ['501', 'limit'],
    ['-1', 'limit'],
    ['1.5', 'limit'],
    ['abc', 'limit'],
    ['', 'limit'],
    ['10&limit=20', 'limit'],
  ])('refuses limit=%s with 400 invalid_request naming /query/limit', async (value, name) => {
    const res = await get(`/dev/inbox/api/messages?limit=${value}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: `/query/${name}` }] },
    });
  });

  it('accepts limit 1 and 500; refuses unknown parameters, repeated ones and a bad since', async () => {
    expect((await get('/dev/inbox/api/messages?limit=1')).statusCode).toBe(200);
    expect((await get('/dev/inbox/api/messages?limit=500')).statusCode).toBe(200);
    for (const [q, pointer] of [
      ['?email=a%40example.com', '/query/email'],
      ['?to=a%40example.com&to=b%40example.com', '/query/to'],
      ['?since=yesterday', '/query/since'],
      [`?to=${'a'.repeat(321)}`, '/query/to'],
    ] as const) {
      for (const base of ['/dev/inbox/api/messages', '/dev/inbox/api/messages/latest']) {
        const res = await get(`${base}${q}`);
        expect(res.statusCode, base + q).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
        expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(pointer);
      }
    }
    expect((await get('/dev/inbox/api/messages/latest?limit=1')).json().error.details[0].path).toBe(
      '/query/limit',
    );
  });

  it('reads since as an RFC 3339 date-time with an offset, and refuses anything else', async () => {
    for (const since of [
      '1',
      '2026',
      '2026-11',
      '2026-11-22',
      '2026-11-22T10:15:30',
      '2026-11-22 10:15:30Z',
      '2026-02-30T10:15:30Z',
      '1969-12-31T23:59:59Z',
      'Sun, 22 Nov 2026 10:15:30 GMT',
      '',
    ]) {
      for (const base of ['/dev/inbox/api/messages', '/dev/inbox/api/messages/latest']) {
        const res = await get(`${base}?since=${encodeURIComponent(since)}`);
        expect(res.statusCode, `${base} since=${since}`).toBe(400);
        expect(res.json().error).toMatchObject({
          code: 'invalid_request',
          details: [{ path: '/query/since', message: expect.stringContaining('RFC 3339') }],
        });
      }
    }
    const before = await capture({ to: 'since@example.com', subject: 'before', html: '', text: 'x' });
    const at = new Date(clockMs + 1000);
    const after = await capture({ to: 'since@example.com', subject: 'after', html: '', text: 'x' });
    // The instant in UTC with a fraction, in whole seconds (a little earlier), and with an offset.
    const local = new Date(at.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    for (const since of [at.toISOString(), at.toISOString().replace(/\.\d{3}Z$/, 'Z'), local]) {
      const res = await get(
        `/dev/inbox/api/messages?to=since%40example.com&since=${encodeURIComponent(since)}`,
      );
      expect(res.statusCode, since).toBe(200);
      expect(
        res.json().messages.map((m: { id: string }) => m.id),
        since,
      ).toEqual([after]);
    }
    expect(before).not.toBe(after);
  });

  it('answers 404 message_not_found when no message matches or the id is unknown', async () => {
    for (const url of [
      '/dev/inbox/api/messages/latest?to=nobody%40example.com',
      '/dev/inbox/api/messages/latest',
      `/dev/inbox/api/messages/msg_${'0'.repeat(26)}`,
      '/dev/inbox/api/messages/not-an-id',
      '/dev/inbox/api/messages/..%2F..%2Fmailsvc.lock',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, error: { code: 'message_not_found' } });
    }
    const res = await del(`/dev/inbox/api/messages/msg_${'0'.repeat(26)}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('message_not_found');
  });

  it('deletes one message, then all of them', async () => {
    const a = await capture({ to: 'd@example.com', subject: 'a', html: '', text: 'a' });
    const b = await capture({ to: 'd@example.com', subject: 'b', html: '', text: 'b' });
    const c = await capture({ to: 'e@example.com', subject: 'c', html: '', text: 'c' });
    const one = await del(`/dev/inbox/api/messages/${b}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ ok: true, deleted: 1 });
    expect(fs.existsSync(path.join(dir, `${b}.eml`))).toBe(false);
    expect((await get(`/dev/inbox/api/messages/${b}`)).statusCode).toBe(404);
    expect((await get(`/dev/inbox/${b}`)).statusCode).toBe(404);
    expect((await api('/dev/inbox/api/messages')).body.messages.map((m: { id: string }) => m.id)).toEqual([
      c,
      a,
    ]);
    expect((await del(`/dev/inbox/api/messages/${b}`)).statusCode).toBe(404);

    const all = await del('/dev/inbox/api/messages');
    expect(all.json()).toEqual({ ok: true, deleted: 2 });
    expect((await api('/dev/inbox/api/messages')).body.messages).toEqual([]);
    expect((await get('/dev/inbox')).body).toContain('No messages yet');
    expect((await del('/dev/inbox/api/messages')).json()).toEqual({ ok: true, deleted: 0 });
  });

  it('deletes only the messages that match the filters of the list (a parallel test cleans up its own mail)', async () => {
    const annLogin = await capture({
      to: 'ann@example.com',
      subject: 'a',
      html: '',
      text: 'a',
      templateId: 'login-code',
      tenantId: 'ten_A',
      projectId: 'prj_A1',
    });
    const sinceLater = new Date(clockMs + 1000).toISOString();
    const annWelcome = await capture({
      to: 'ANN@example.com',
      subject: 'b',
      html: '',
      text: 'b',
      templateId: 'welcome',
      tenantId: 'ten_A',
      projectId: 'prj_A2',
    });
    const bob = await capture({
      to: 'bob@example.com',
      subject: 'c',
      html: '',
      text: 'c',
      templateId: 'login-code',
      tenantId: 'ten_B',
      projectId: 'prj_B1',
    });
    const old = await capture({ to: 'old@example.com', subject: 'd', html: '', text: 'd' });
    const ids = async () =>
      (await api('/dev/inbox/api/messages')).body.messages.map((m: { id: string }) => m.id);
    expect(await ids()).toEqual([old, bob, annWelcome, annLogin]);

    // The user's report: ?to= was ignored and every message went.
    const ann = await del('/dev/inbox/api/messages?to=Ann%40Example.com&template=auth%2Flogin-code');
    expect(ann.statusCode).toBe(200);
    expect(ann.json()).toEqual({ ok: true, deleted: 1 });
    expect(fs.existsSync(path.join(dir, `${annLogin}.eml`))).toBe(false);
    expect(await ids()).toEqual([old, bob, annWelcome]);

    expect((await del('/dev/inbox/api/messages?to=nobody%40example.com')).json()).toEqual({
      ok: true,
      deleted: 0,
    });
    expect((await del('/dev/inbox/api/messages?project=prj_A2')).json()).toEqual({ ok: true, deleted: 1 });
    expect(await ids()).toEqual([old, bob]);
    expect((await del('/dev/inbox/api/messages?tenant=ten_A')).json()).toEqual({ ok: true, deleted: 0 });
    expect((await del('/dev/inbox/api/messages?tenant=ten_B')).json()).toEqual({ ok: true, deleted: 1 });
    expect(await ids()).toEqual([old]);
    expect((await del(`/dev/inbox/api/messages?since=${encodeURIComponent(sinceLater)}`)).json()).toEqual({
      ok: true,
      deleted: 1,
    });
    expect(await ids()).toEqual([]);
  });

  it('refuses a DELETE whose query is not valid (400, the parameter named), and deletes nothing', async () => {
    const id = await capture({ to: 'keep@example.com', subject: 'keep', html: '', text: 'x' });
    for (const [q, pointer, message] of [
      ['?email=keep%40example.com', '/query/email', 'is not a parameter of this route'],
      ['?to=a%40example.com&to=b%40example.com', '/query/to', 'must be given once'],
      ['?to=', '/query/to', 'must not be empty'],
      ['?tenant=%20', '/query/tenant', 'must not be empty'],
      ['?since=2026', '/query/since', 'RFC 3339'],
      ['?limit=1', '/query/limit', 'is not a parameter of this route'],
    ] as const) {
      const res = await del(`/dev/inbox/api/messages${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        details: [{ path: pointer, message: expect.stringContaining(message) }],
      });
    }
    expect(fs.existsSync(path.join(dir, `${id}.eml`))).toBe(true);
    expect(await api('/dev/inbox/api/messages')).toMatchObject({ body: { messages: [{ id }] } });
  });

  it('refuses an empty to, template, tenant or project (it would match every message) on every route that filters', async () => {
    await capture({
      to: 'stranger@example.com',
      subject: 'Your code',
      html: '<span class="code">111222</span>',
      text: 'x',
      tenantId: 'ten_A',
    });
    for (const name of ['to', 'template', 'tenant', 'project']) {
      for (const value of ['', '%20%20']) {
        for (const [method, base] of [
          ['GET', '/dev/inbox/api/messages'],
          ['GET', '/dev/inbox/api/messages/latest'],
          ['DELETE', '/dev/inbox/api/messages'],
        ] as const) {
          const res = await app.inject({ method, url: `${base}?${name}=${value}` });
          expect(res.statusCode, `${method} ${base}?${name}=${value}`).toBe(400);
          expect(res.json().error).toMatchObject({
            code: 'invalid_request',
            details: [{ path: `/query/${name}`, message: 'must not be empty' }],
          });
          expect(res.body).not.toContain('111222');
        }
      }
    }
    expect((await api('/dev/inbox/api/messages')).body.messages).toHaveLength(1);
  });

  it('refuses any parameter on the routes of one message, as the list routes refuse unknown ones', async () => {
    const id = await capture({ to: 'one@example.com', subject: 'one', html: '', text: 'x' });
    for (const [method, q] of [
      ['GET', '?x=1'],
      ['GET', '?to=one%40example.com'],
      ['DELETE', '?x=1'],
    ] as const) {
      const res = await app.inject({ method, url: `/dev/inbox/api/messages/${id}${q}` });
      expect(res.statusCode, `${method} ${q}`).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        details: [
          { path: `/query/${q.slice(1, q.indexOf('='))}`, message: expect.stringContaining('takes none') },
        ],
      });
    }
    expect((await get(`/dev/inbox/api/messages/${id}`)).statusCode).toBe(200);
  });

  it('answers any other path under /dev/inbox/api with the JSON 404 not_found of an unknown path, for every method', async () => {
    const id = await capture({ to: 'paths@example.com', subject: 'paths', html: '', text: 'x' });
    const unknown = await get('/no/such/path');
    expect(unknown.json().error.code).toBe('not_found');
    for (const [method, url] of [
      ['GET', '/dev/inbox/api'],
      ['GET', '/dev/inbox/api?to=paths%40example.com'],
      ['GET', '/dev/inbox/api/'],
      ['GET', '/dev/inbox/api/raw'],
      ['GET', '/dev/inbox/api/message'],
      ['GET', '/dev/inbox/api/messages/latest/raw'],
      ['GET', `/dev/inbox/api/messages/${id}/raw`],
      ['HEAD', '/dev/inbox/api'],
      ['DELETE', '/dev/inbox/api'],
      ['DELETE', '/dev/inbox/api/everything'],
      ['POST', '/dev/inbox/api/messages/x/y'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.headers['content-type'], `${method} ${url}`).toMatch(/^application\/json/);
      if (method === 'HEAD') continue;
      expect(res.json(), `${method} ${url}`).toEqual({
        ok: false,
        error: {
          code: 'not_found',
          message: `No route ${method} ${url.split('?')[0]}.`,
          requestId: expect.any(String),
        },
      });
    }
    // The routes next to them are unchanged.
    expect((await get('/dev/inbox/api/messages')).statusCode).toBe(200);
    expect((await get(`/dev/inbox/api/messages/${id}`)).statusCode).toBe(200);
    expect((await get(`/dev/inbox/${id}/raw`)).statusCode).toBe(200);
    expect((await get('/dev/inbox/msg_00000000000000000000000000')).body).toContain('Message not found');
    expect(fs.existsSync(path.join(dir, `${id}.eml`))).toBe(true);
  });

  it('deletes from its own page (same origin) but refuses cross-site and form-encoded requests', async () => {
    const id = await capture({ to: 'csrf@example.com', subject: 'csrf', html: '', text: 'x' });
    const host = 'localhost:3000';
    const refusals: [string, Record<string, string>][] = [
      ['another site', { host, origin: 'http://attacker.example' }],
      ['another local port', { host, origin: 'http://localhost:5173' }],
      ['an opaque origin', { host, origin: 'null' }],
      ['a cross-site fetch', { host, 'sec-fetch-site': 'cross-site' }],
      ['a same-site fetch', { host, 'sec-fetch-site': 'same-site', origin: 'http://localhost:3000' }],
      ['no Origin but Sec-Fetch-Site none', { host, 'sec-fetch-site': 'none' }],
    ];
    for (const url of [`/dev/inbox/api/messages/${id}`, '/dev/inbox/api/messages']) {
      for (const [name, headers] of refusals) {
        const res = await del(url, headers);
        expect(res.statusCode, `${name} ${url}`).toBe(403);
        expect(res.json().error.code).toBe('cross_site_request');
      }
      const form = await app.inject({
        method: 'DELETE',
        url,
        headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'x=1',
      });
      expect(form.statusCode, url).toBe(415);
      expect(form.json().error.code).toBe('unsupported_media_type');
    }
    expect(fs.existsSync(path.join(dir, `${id}.eml`))).toBe(true);
    const same = await del(`/dev/inbox/api/messages/${id}`, {
      host,
      origin: 'http://localhost:3000',
      'sec-fetch-site': 'same-origin',
    });
    expect(same.json()).toEqual({ ok: true, deleted: 1 });
  });
});

describe('who may reach the dev inbox', () => {
  it('refuses every route to a request not addressed to a loopback name (404, nothing deleted)', async () => {
    const id = await capture({ to: 'private@example.com', subject: 'private', html: '', text: 'x' });
    const routes: [string, string][] = [
      ['GET', '/dev/inbox'],
      ['GET', '/dev/inbox.json'],
      ['GET', '/dev/inbox/app.js'],
      ['GET', '/dev/inbox/events'],
      ['GET', `/dev/inbox/${id}`],
      ['GET', `/dev/inbox/${id}/raw`],
      ['GET', '/dev/inbox/api/messages'],
      ['GET', '/dev/inbox/api/messages/latest?to=private%40example.com'],
      ['GET', `/dev/inbox/api/messages/${id}`],
      ['DELETE', `/dev/inbox/api/messages/${id}`],
      ['DELETE', '/dev/inbox/api/messages'],
    ];
    for (const [method, url] of routes) {
      for (const host of [
        'attacker.example',
        'localhost.attacker.example:3000',
        '10.0.0.5:3000',
        '127.0.0.1.nip.io',
      ]) {
        const res = await app.inject({
          method: method as 'GET',
          url,
          headers: { host, origin: `http://${host}` },
        });
        expect(res.statusCode, `${method} ${url} Host: ${host}`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
        expect(res.body).not.toContain('private@example.com');
      }
    }
    expect(fs.existsSync(path.join(dir, `${id}.eml`))).toBe(true);
  });

  it('answers other methods on the new routes with 405 and Allow', async () => {
    for (const [method, url, allow] of [
      ['POST', '/dev/inbox/api/messages', 'DELETE, GET, HEAD'],
      ['PUT', '/dev/inbox/api/messages/msg_00000000000000000000000000', 'DELETE, GET, HEAD'],
      ['DELETE', '/dev/inbox/api/messages/latest', 'GET, HEAD'],
      ['POST', '/dev/inbox/events', 'GET, HEAD'],
      ['DELETE', '/dev/inbox/app.js', 'GET, HEAD'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
    }
  });
});

// ---- live updates: a real socket, since an event stream does not end

function openEvents(port: number, host = `127.0.0.1:${port}`) {
  const chunks: string[] = [];
  let ended = false;
  let waiters: (() => void)[] = [];
  const req = http.get({ host: '127.0.0.1', port, path: '/dev/inbox/events', headers: { host } });
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        chunks.push(c);
        for (const w of waiters) w();
      });
      res.on('end', () => {
        ended = true;
        for (const w of waiters) w();
      });
      resolve(res);
    });
    req.on('error', reject);
  });
  const until = (predicate: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}: ${chunks.join('')}`)),
        5000,
      );
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
          resolve();
        }
      };
      waiters.push(check);
      check();
    });
  return {
    response,
    text: () => chunks.join(''),
    waitFor: (s: string) => until(() => chunks.join('').includes(s), JSON.stringify(s)),
    waitForEnd: () => until(() => ended, 'the end of the stream'),
    destroy: () => req.destroy(),
  };
}

describe('GET /dev/inbox/events (server-sent events)', () => {
  it('emits an event when a message is captured or deleted, and app.close() ends open streams', async () => {
    const live = await buildApp(h.runtime.deps, { extraRoutes: [(a) => devInboxRoutes(a, { dir })] });
    await live.listen({ port: 0, host: '127.0.0.1' });
    const port = (live.server.address() as net.AddressInfo).port;
    const events = openEvents(port);
    const quiet = openEvents(port);
    try {
      const res = await events.response;
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      await events.waitFor(': connected');
      await quiet.waitFor(': connected');
      expect(inboxWatcherCount(dir)).toBe(2);

      const id = await capture({ to: 'live@example.com', subject: 'live', html: '', text: 'x' });
      await events.waitFor(`event: captured\ndata: {"messageId":"${id}"}\n\n`);
      await quiet.waitFor(`"messageId":"${id}"`);
      expect((await del(`/dev/inbox/api/messages/${id}`)).statusCode).toBe(200);
      await events.waitFor(`event: deleted\ndata: {"messageIds":["${id}"]}\n\n`);

      // A client that went away is forgotten: its listener is let go (no write to a closed stream
      // on the next capture), and the other stream goes on.
      quiet.destroy();
      await until(() => inboxWatcherCount(dir) === 1, 'the closed stream’s listener to be let go');
      const after = await capture({ to: 'live@example.com', subject: 'after', html: '', text: 'x' });
      await events.waitFor(`"messageId":"${after}"`);
      expect(inboxWatcherCount(dir)).toBe(1);

      // Open streams must not hold the shutdown (Fastify waits for every request in flight).
      const outcome = await Promise.race([
        live.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5000).unref()),
      ]);
      expect(outcome).toBe('closed');
      expect(inboxWatcherCount(dir)).toBe(0);
      await events.waitForEnd();
    } finally {
      events.destroy();
      quiet.destroy();
      await live.close();
    }
  });

  it('refuses a stream to a non-loopback Host over a real socket', async () => {
    const live = await buildApp(h.runtime.deps, { extraRoutes: [(a) => devInboxRoutes(a, { dir })] });
    await live.listen({ port: 0, host: '127.0.0.1' });
    const port = (live.server.address() as net.AddressInfo).port;
    const events = openEvents(port, 'attacker.example');
    try {
      const res = await events.response;
      expect(res.statusCode).toBe(404);
      await events.waitForEnd();
      expect(JSON.parse(events.text()).error.code).toBe('not_found');
    } finally {
      events.destroy();
      await live.close();
    }
  });
});
