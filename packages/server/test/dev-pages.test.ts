import { FRAME_SANDBOX } from '@mailsvc/templates';
import {
  backend,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { isJsonContentType } from '../src/api/json-body.js';
import { loadConfig } from '../src/config.js';
import {
  captureTransport,
  inboxDir,
  listCaptured,
  readCaptured,
} from '../src/delivery/transports/capture.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { DEV_PAGE_HEADERS, devPagesFor, gallerySendFor } from '../src/dev/dev-access.js';
import { devPageRoutes } from '../src/dev/dev-pages.js';
import { devRoutes } from '../src/dev/gallery/gallery-routes.js';
import { FRAME_SANDBOX as INBOX_FRAME_SANDBOX } from '../src/dev/inbox/inbox-page.js';
import { devInboxRoutes } from '../src/dev/inbox/inbox-routes.js';

let h: Harness;
/** The gallery as `mailsvc start` serves it with the capture transport (send on). */
let app: FastifyInstance;
/** A project with a brand (colour, logo, postal address) and an environment with a key. */
let brand: Scope;
const BRAND_COLOR = '#0f766e';
const BRAND_DOMAIN = 'mail.brandly.test';

beforeAll(async () => {
  h = await createHarness();
  brand = await seedScope(h);
  await h.runtime.deps.db
    .updateTable('projects')
    .set({
      display_name: 'Brandly',
      brand_color: BRAND_COLOR,
      logo_url: 'https://cdn.brandly.test/logo.png',
      postal_address: '1 Harbour Road\nLisbon',
    })
    .where('id', '=', brand.projectId)
    .execute();
  // A verified sending domain: its mail is DKIM-signed, as it would be in production.
  await h.admin('domains.add', { domain: BRAND_DOMAIN, project: brand.projectId });
  await h.admin('domains.set-status', { domain: BRAND_DOMAIN, status: 'verified' });
  app = await buildApp(h.runtime.deps, {
    extraRoutes: [(a) => devRoutes(a, h.runtime.deps, { send: { isOn: true } })],
  });
});
afterAll(async () => {
  await app.close();
  await h.close();
});

/** The field table of a template page, as rows of cell texts. */
function fieldTable(page: string): string[][] {
  const tbody = /<section class="fields"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!;
  return [...tbody.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '')),
  );
}

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers });
const SAME_ORIGIN = { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' };
const post = (url: string, body: unknown, headers: Record<string, string> = SAME_ORIGIN) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });

describe('GET /dev/templates (the index)', () => {
  it('lists every template by category with its versions and route, links each to its page, and renders no mail', async () => {
    const res = await get('/dev/templates');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1 id="index-heading">Templates (52)</h1>');
    expect(res.body.match(/<li data-search=/g)).toHaveLength(52);
    for (const category of ['security', 'transactional', 'notification'])
      expect(res.body).toContain(`data-category="${category}"`);
    expect(res.body).toContain('href="/dev/templates/login-code"');
    expect(res.body).toContain('<code>POST /auth/login-code</code>');
    expect(res.body).toContain('href="/dev/templates/activity-digest?version=v2">v2 draft</a>');
    expect(res.body).not.toContain('<iframe');
    expect(res.body.length).toBeLessThan(40_000);
  });

  it('filters with ?q= on the server: every term must match the id, route, category or description', async () => {
    const login = await get('/dev/templates?q=login');
    expect(login.body).toContain('href="/dev/templates/login-code"');
    expect(login.body).not.toContain('href="/dev/templates/invoice-available"');
    const two = await get('/dev/templates?q=billing%20receipt');
    expect(two.body.match(/<li data-search=/g)).toHaveLength(1);
    expect(two.body).toContain('href="/dev/templates/payment-receipt"');
    const none = await get('/dev/templates?q=%3Cscript%3Ezzz');
    expect(none.body).not.toContain('<li data-search=');
    expect(none.body).toContain('<p id="no-match">');
    expect(none.body).toContain('value="&lt;script&gt;zzz"');
  });

  it('still shows every plain-text part with ?format=text', async () => {
    const text = await get('/dev/templates?format=text');
    expect(text.body.match(/<pre class="text">/g)).toHaveLength(54); // 52 v1 + welcome v2 + activity-digest v2 draft
    expect(text.body).toContain('POST /auth/login-code');
  });

  it('sends a strict CSP: scripts from this origin only, none inline', async () => {
    const res = await get('/dev/templates');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.body.match(/<script[^>]*>/g)).toEqual(['<script src="/dev/templates/app.js" defer>']);
    const js = await get('/dev/templates/app.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.body).toContain("getElementById('template-index')");
  });
});

describe('GET /dev/templates/:id (a template page)', () => {
  it('shows the header, the field table from the fields and JSON Schema, and the editor prefilled with the fixture', async () => {
    const res = await get('/dev/templates/login-code');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>login-code</h1>');
    expect(res.body).toContain('<code>POST /auth/login-code</code>');
    expect(res.body).toContain('<code>sendLoginCode</code>');
    expect(res.body).toContain('<dd>security</dd>');
    // field, type, max length, required, default, notes
    const rows = fieldTable(res.body);
    expect(rows[0]).toEqual(['subject', 'string', '180', 'no', 'Your login code', 'subject']);
    expect(rows).toContainEqual(['code', 'string', '240', 'yes', '', 'one-time code, shown large']);
    expect(rows.map((r) => r[0])).toEqual([
      'subject',
      'preheader',
      'heading',
      'intro',
      'code',
      'securityNote',
      'footerNote',
    ]);
    expect(res.body).toMatch(/<textarea id="data"[^>]*>\{\n {2}&quot;code&quot;: &quot;482913&quot;/);
    expect(res.body).toContain('<summary>JSON Schema</summary>');
  });

  it('lists nested fields: a required button URL, a detail row with its format', async () => {
    const magic = fieldTable((await get('/dev/templates/magic-link')).body);
    expect(magic).toContainEqual(['actionButton', 'object', '', 'yes', '', 'button']);
    expect(magic).toContainEqual([
      'actionButton.url',
      'string (http or https URL)',
      '2048',
      'yes',
      '',
      'button link',
    ]);
    const locked = fieldTable((await get('/dev/templates/account-locked')).body);
    expect(locked).toContainEqual(['lockDetails.lockedAt', 'string (date-time)', '64', 'no', '', 'Locked']);
    // An optional button with an optional link (left out, the button is not shown).
    expect(locked).toContainEqual([
      'actionButton.url',
      'string (http or https URL)',
      '2048',
      'no',
      '',
      'button link',
    ]);
  });

  it('shows the preview in a sandboxed frame that runs no script', async () => {
    const res = await get('/dev/templates/login-code');
    const frame = /<iframe [^>]*>/.exec(res.body)![0];
    expect(frame).toContain('sandbox="allow-popups allow-popups-to-escape-sandbox"');
    expect(frame).not.toMatch(/allow-scripts|allow-same-origin|allow-forms/);
    expect(frame).toContain('srcdoc="&lt;!DOCTYPE html&gt;');
    expect(frame).toContain('482913');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it("opens the preview's links in a new tab, in the dev inbox's frame (one sandbox, one frame document)", async () => {
    const res = await get('/dev/templates/magic-link');
    const frame = /<iframe [^>]*>/.exec(res.body)![0];
    // The sandbox is the shared constant, the dev inbox's too.
    expect(INBOX_FRAME_SANDBOX).toBe(FRAME_SANDBOX);
    expect(/ sandbox="([^"]*)"/.exec(frame)![1]).toBe(FRAME_SANDBOX);
    // A link without a target would navigate the sandboxed frame, which the CSP refuses: dead.
    const srcdoc = /srcdoc="([^"]*)"/.exec(frame)![1]!;
    expect(srcdoc).toMatch(
      /^&lt;!DOCTYPE html&gt;&lt;html[\s\S]*?&lt;head&gt;&lt;base target=&quot;_blank&quot;&gt;&lt;meta name=&quot;referrer&quot; content=&quot;no-referrer&quot;&gt;/,
    );
    expect(srcdoc).toContain('href=&quot;https://');
    // The live re-render puts the server's frame document in, not the bare HTML.
    const render = await post('/dev/templates/magic-link/render', {
      data: { actionButton: { url: 'https://app.example.com/in' } },
    });
    expect(render.json().frameHtml).toContain('<head><base target="_blank"><meta name="referrer"');
    expect(render.json().html).not.toContain('<base target');
    const js = await get('/dev/templates/app.js');
    expect(js.body).toContain('frame.srcdoc = body.frameHtml;');
    expect(js.body).not.toContain('frame.srcdoc = body.html');
  });

  it('renders the dark variant with ?scheme=dark, at the chosen width, or the text part', async () => {
    const light = await get('/dev/templates/login-code');
    const dark = await get('/dev/templates/login-code?scheme=dark&width=375');
    expect(/<iframe [^>]*>/.exec(dark.body)![0]).toContain('class="frame w375 dark"');
    expect(dark.body).toContain('@media all{');
    expect(light.body).toContain('@media not all{');
    const text = await get('/dev/templates/login-code?view=text');
    expect(text.body).toMatch(/<iframe [^>]* hidden><\/iframe><\/div><pre id="text" class="text">/);
  });

  it('renders a draft version, whose send button is off', async () => {
    const res = await get('/dev/templates/activity-digest?version=v2');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('aria-current="page">v2 draft</a>');
    expect(res.body).toMatch(/id="send-button" disabled>/);
    expect(res.body).toContain('Drafts cannot be sent');
  });

  it("renders with a project's brand with ?project=, and lists the projects to choose from", async () => {
    const res = await get(`/dev/templates/magic-link?project=${brand.projectId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(
      new RegExp(`<option value="${brand.projectId}"[^>]* selected>Brandly · Acme · ${BRAND_COLOR}`),
    );
    expect(res.body).toContain(`background:${BRAND_COLOR}`);
    expect(res.body).toContain('https://cdn.brandly.test/logo.png');
    expect(res.body).toContain('It sends through Brandly, environment production');
    const example = await get('/dev/templates/magic-link');
    expect(example.body).not.toContain(`background:${BRAND_COLOR}`);
  });

  it('answers an unknown template, version or project with a 404 page naming the code', async () => {
    for (const [url, code] of [
      ['/dev/templates/no-such-template', 'template_not_found'],
      ['/dev/templates/login-code?version=v9', 'template_version_not_found'],
      ['/dev/templates/login-code?project=prj_nope', 'project_not_found'],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain(`<code>${code}</code>`);
    }
  });

  it('answers a project that is not a project id (a NUL, 65 characters, markup, two of them) with the 404 page, without a query', async () => {
    for (const project of [
      '%00',
      `prj_x%00`,
      'x'.repeat(65),
      `${'x'.repeat(100_000)}`,
      '%E2%80%AEprj_x',
      'prj-x',
      '%3Cscript%3E',
      "x'%20OR%201=1--",
      `${brand.projectId}&project=${brand.projectId}`,
    ]) {
      const res = await get(`/dev/templates/login-code?project=${project}`);
      const url = `?project=${project.slice(0, 40)}`;
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy'], url).toContain("default-src 'none'");
      expect(res.body, url).toContain('<code>project_not_found</code>');
      expect(res.body.length, url).toBeLessThan(20_000);
    }
    // `?project=` is the toolbar's example option: no project.
    expect((await get('/dev/templates/login-code?project=')).statusCode).toBe(200);
  });
});

describe('POST /dev/templates/:id/render', () => {
  it('answers the subject, preheader, HTML and text of valid data, defaults filled', async () => {
    const res = await post('/dev/templates/login-code/render', { version: 'v1', data: { code: '135790' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, subject: 'Your login code', preheader: expect.any(String) });
    expect(body.html).toContain('135790');
    expect(body.text).toContain('135790');
    expect(Object.keys(body).sort()).toEqual(['frameHtml', 'html', 'ok', 'preheader', 'subject', 'text']);
  });

  it('answers 400 invalid_template_data with the path of each problem, as POST /v1/send', async () => {
    const res = await post('/dev/templates/magic-link/render', {
      data: { subject: 'x'.repeat(181), actionButton: { url: 'javascript:alert(1)' }, extra: 1 },
    });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_template_data');
    const paths = error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['/data/actionButton/url', '/data/extra', '/data/subject']);
    const missing = await post('/dev/templates/login-code/render', { data: {} });
    expect(missing.json().error.details).toEqual([{ path: '/data/code', message: 'is required' }]);
  });

  it('renders a dark variant whose template dark-mode rules apply unconditionally', async () => {
    const data = { code: '135790' };
    const light = (await post('/dev/templates/login-code/render', { data, colorScheme: 'light' })).json();
    const dark = (await post('/dev/templates/login-code/render', { data, colorScheme: 'dark' })).json();
    expect(dark.html).not.toBe(light.html);
    expect(dark.html).not.toMatch(/prefers-color-scheme/);
    expect(dark.html).toContain('@media all{');
    expect(light.html).toContain('@media not all{');
    expect(dark.text).toBe(light.text);
  });

  it("renders with a project's brand, and refuses an unknown project, template or version with 404", async () => {
    const branded = await post('/dev/templates/magic-link/render', {
      data: { actionButton: { url: 'https://app.brandly.test/in' } },
      project: brand.projectId,
    });
    expect(branded.json().html).toContain(`background:${BRAND_COLOR}`);
    expect(branded.json().subject).toBe('Your sign-in link for Brandly');
    for (const [url, body, code] of [
      ['/dev/templates/login-code/render', { data: {}, project: 'prj_nope' }, 'project_not_found'],
      ['/dev/templates/login-code/render', { data: {}, project: 'x'.repeat(65) }, 'project_not_found'],
      ['/dev/templates/login-code/render', { data: {}, project: 'x'.repeat(100_000) }, 'project_not_found'],
      ['/dev/templates/login-code/render', { data: {}, project: '\u202eprj_x' }, 'project_not_found'],
      ['/dev/templates/login-code/render', { data: {}, project: '' }, 'project_not_found'],
      ['/dev/templates/login-code/render', { data: {}, project: "x' OR 1=1--" }, 'project_not_found'],
      ['/dev/templates/nope/render', { data: {} }, 'template_not_found'],
      ['/dev/templates/login-code/render', { data: {}, version: 'v9' }, 'template_version_not_found'],
    ] as const) {
      const res = await post(url, body);
      expect(res.statusCode, code).toBe(404);
      expect(res.json().error.code).toBe(code);
    }
    // A NUL is refused by the body parser, as in every JSON body (PostgreSQL cannot store it).
    const nul = await post('/dev/templates/login-code/render', {
      data: {},
      project: `${brand.projectId}\u0000`,
    });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().error.details).toEqual([{ path: '/project', message: expect.any(String) }]);
  });

  it('refuses a body that is not the route shape, or over 256 KiB', async () => {
    const bad = await post('/dev/templates/login-code/render', { data: [], colorScheme: 'sepia' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
    const big = await post('/dev/templates/login-code/render', { data: { code: 'x'.repeat(300 * 1024) } });
    expect(big.statusCode).toBe(413);
  });
});

describe('POST /dev/templates/:id/send', () => {
  it('sends through POST /v1/send and delivery to the dev inbox, with the project brand and the right subject', async () => {
    const res = await post('/dev/templates/magic-link/send', {
      version: 'v1',
      data: { actionButton: { url: 'https://app.brandly.test/in' } },
      to: 'gallery@example.com',
      project: brand.projectId,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      ok: true,
      status: 'accepted',
      projectId: brand.projectId,
      environmentId: brand.environmentId,
      environmentName: 'production',
      inboxUrl: '/dev/inbox',
    });
    expect(body.messageUrl).toBe(`/dev/inbox/${body.messageId}`);
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['template_id', 'api_key_id', 'to_email'])
      .where('id', '=', body.messageId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      template_id: 'magic-link',
      api_key_id: brand.keyId,
      to_email: 'gallery@example.com',
    });

    const dir = inboxDir(h.dataDir);
    const worker = new DeliveryWorker(h.runtime.deps, captureTransport(dir), {
      concurrency: 2,
      leaseMs: 60_000,
      pollMs: 60_000,
    });
    try {
      expect(await worker.drain()).toBeGreaterThan(0);
    } finally {
      await worker.stop();
    }
    const entry = (await listCaptured(dir)).find((e) => e.messageId === body.messageId);
    expect(entry).toMatchObject({ subject: 'Your sign-in link for Brandly', templateId: 'magic-link' });
    const mail = await simpleParser((await readCaptured(dir, body.messageId))!);
    expect(mail.subject).toBe('Your sign-in link for Brandly');
    expect(mail.from?.value[0]?.address).toBe(`notifications@${BRAND_DOMAIN}`);
    const dkim = mail.headerLines.find((l) => l.key === 'dkim-signature');
    expect(dkim?.line).toContain(`d=${BRAND_DOMAIN}`);
    expect(String(mail.html)).toContain(`background:${BRAND_COLOR}`);
  });

  it('refuses a draft (published versions only), invalid data with paths, and unknown names with 404', async () => {
    const draft = await post('/dev/templates/activity-digest/send', {
      version: 'v2',
      data: {},
      to: 'gallery@example.com',
      project: brand.projectId,
    });
    expect(draft.statusCode).toBe(404);
    expect(draft.json().error.code).toBe('template_version_not_found');
    const invalid = await post('/dev/templates/login-code/send', {
      data: {},
      to: 'gallery@example.com',
      project: brand.projectId,
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.details).toEqual([{ path: '/data/code', message: 'is required' }]);
    for (const [url, project, code] of [
      ['/dev/templates/nope/send', brand.projectId, 'template_not_found'],
      ['/dev/templates/login-code/send', 'prj_nope', 'project_not_found'],
      ['/dev/templates/login-code/send', '\u202eprj_x', 'project_not_found'],
      ['/dev/templates/login-code/send', 'x'.repeat(65), 'project_not_found'],
      ['/dev/templates/login-code/send', '', 'project_not_found'],
    ] as const) {
      const res = await post(url, { data: { code: '1' }, to: 'gallery@example.com', project });
      expect(res.statusCode, code).toBe(404);
      expect(res.json().error.code).toBe(code);
    }
  });

  it('does not exist without the capture transport: the gallery never sends real mail', async () => {
    const noSend = await buildApp(h.runtime.deps, { extraRoutes: [(a) => devRoutes(a, h.runtime.deps)] });
    try {
      const res = await noSend.inject({
        method: 'POST',
        url: '/dev/templates/login-code/send',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ data: { code: '1' }, to: 'gallery@example.com' }),
      });
      expect(res.statusCode).toBe(404);
      const page = await noSend.inject({ method: 'GET', url: '/dev/templates/login-code' });
      expect(page.body).toContain('Sending is off');
      expect(page.body).toMatch(/id="send-button" disabled>/);
    } finally {
      await noSend.close();
    }
  });
});

describe("the gallery send's refusals (the error table)", () => {
  const send = (project: string) =>
    post('/dev/templates/login-code/send', { data: { code: '1' }, to: 'gallery@example.com', project });
  const v1Send = (apiKey: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ templateId: 'login-code', to: 'gallery@example.com', data: { code: '1' } }),
    });
  const messagesOf = async (projectId: string) =>
    (
      await h.runtime.deps.db
        .selectFrom('messages')
        .select('id')
        .where('project_id', '=', projectId)
        .execute()
    ).length;

  it('answers 404 environment_not_found for a project with no active API key (none, or only revoked ones)', async () => {
    const scope = await seedScope(h);
    const { project } = await h.admin('projects.create', { tenant: scope.tenantId, name: 'No Keys' });
    await h.admin('environments.create', { project: project.id, name: 'development' });
    await h.admin('keys.revoke', { id: scope.keyId });
    for (const projectId of [project.id, scope.projectId]) {
      const res = await send(projectId);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().error.code).toBe('environment_not_found');
      expect(await messagesOf(projectId)).toBe(0);
    }
  });

  it("refuses what POST /v1/send refuses for the project's key: an expired trial, an inactive project or environment", async () => {
    const expired = await seedScope(h, { trialEndsAt: '2026-01-01T00:00:00Z' });
    const inactiveProject = await seedScope(h);
    await h.admin('projects.update', { id: inactiveProject.projectId, status: 'inactive' });
    const inactiveEnvironment = await seedScope(h);
    await h.admin('environments.update', { id: inactiveEnvironment.environmentId, status: 'inactive' });
    for (const [scope, status, code] of [
      [expired, 402, 'trial_expired'],
      [inactiveProject, 403, 'project_inactive'],
      [inactiveEnvironment, 403, 'environment_inactive'],
    ] as const) {
      const direct = await v1Send(scope.apiKey);
      expect(direct.statusCode, code).toBe(status);
      expect(direct.json().error.code).toBe(code);
      const res = await send(scope.projectId);
      expect(res.statusCode, `${code}: ${res.body}`).toBe(status);
      expect(res.json().error.code).toBe(code);
      expect(await messagesOf(scope.projectId)).toBe(0);
    }
  });
});

describe('the send route exists only with the capture transport on the embedded database', () => {
  const sendRequest = {
    method: 'POST' as const,
    url: '/dev/templates/login-code/send',
    headers: { 'content-type': 'application/json' },
    // The brand's project: it can send (invalid data: nothing is sent).
    get payload() {
      return JSON.stringify({ data: {}, to: 'gallery@example.com', project: brand.projectId });
    },
  };
  /** The dev pages as `mailsvc start` serves them with this configuration and database. */
  async function served(kind: 'pglite' | 'postgres', env: Record<string, string> = {}) {
    const config = { ...h.runtime.config, ...env };
    return buildApp(h.runtime.deps, {
      extraRoutes: devPageRoutes(h.runtime.deps, devPagesFor(config, 'start', kind)),
    });
  }

  it('answers 404 not_found on PostgreSQL (another worker could deliver it for real), and the page says why', async () => {
    const onPostgres = await served('postgres');
    try {
      const res = await onPostgres.inject(sendRequest);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
      // The inbox and the gallery are still served.
      expect((await onPostgres.inject({ method: 'GET', url: '/dev/inbox.json' })).statusCode).toBe(200);
      const page = await onPostgres.inject({ method: 'GET', url: '/dev/templates/login-code' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Sending is off on PostgreSQL');
      expect(page.body).toMatch(/id="send-button" disabled>/);
    } finally {
      await onPostgres.close();
    }
  });

  it('exists on the embedded database (its data is checked), and not with an SMTP relay there', async () => {
    const embedded = await served('pglite');
    try {
      const res = await embedded.inject(sendRequest);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_template_data');
    } finally {
      await embedded.close();
    }
    const relay = await served('pglite', { MAILSVC_SMTP_URL: 'smtp://relay.example:587' });
    try {
      expect((await relay.inject(sendRequest)).statusCode).toBe(404);
      const page = await relay.inject({ method: 'GET', url: '/dev/templates/login-code' });
      expect(page.body).toContain('no MAILSVC_SMTP_URL');
    } finally {
      await relay.close();
    }
  });

  it(`on this test database (${backend}), as mailsvc start would run on it`, async () => {
    const here = await buildApp(h.runtime.deps, {
      extraRoutes: devPageRoutes(
        h.runtime.deps,
        devPagesFor(h.runtime.config, 'start', h.runtime.database.kind),
      ),
    });
    try {
      expect((await here.inject(sendRequest)).statusCode).toBe(backend === 'postgres' ? 404 : 400);
    } finally {
      await here.close();
    }
  });

  it('is decided from the transport and the database kind', () => {
    expect(gallerySendFor(loadConfig({}), 'pglite')).toEqual({ isOn: true });
    expect(gallerySendFor(loadConfig({}), 'postgres')).toMatchObject({ isOn: false });
    expect(
      gallerySendFor(loadConfig({ MAILSVC_SMTP_URL: 'smtp://relay.example:587' }), 'pglite'),
    ).toMatchObject({
      isOn: false,
    });
  });
});

describe('the POST routes refuse what a page on another site could send', () => {
  const routes = ['/dev/templates/login-code/render', '/dev/templates/login-code/send'];
  const body = { data: { code: '1' }, to: 'gallery@example.com', project: 'prj_x' };

  it('refuses another origin (Origin or Sec-Fetch-Site) with 403 cross_site_request, even a same-site one', async () => {
    for (const url of routes) {
      const refused: Record<string, string>[] = [
        { origin: 'http://attacker.example' },
        { origin: 'null' },
        { origin: 'http://localhost:5173' }, // another local dev server: same site, another origin
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: 'http://localhost:80', 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of refused) {
        const res = await post(url, body, headers);
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.json().error.code).toBe('cross_site_request');
      }
    }
    const ok = await post(routes[0]!, { data: { code: '1' } }, SAME_ORIGIN);
    expect(ok.statusCode).toBe(200);
  });

  it('refuses a body that is not application/json with 415 (a form cannot post JSON)', async () => {
    for (const url of routes) {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        const res = await app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': type, ...SAME_ORIGIN },
          payload: 'data={}',
        });
        expect(res.statusCode, `${url} ${type}`).toBe(415);
        expect(res.json().error.code).toBe('unsupported_media_type');
      }
      const none = await app.inject({ method: 'POST', url, headers: SAME_ORIGIN });
      expect(none.statusCode).toBe(415);
    }
  });
});

describe('one content-type rule and one set of page headers for every route', () => {
  it('refuses the same media types with 415 unsupported_media_type on the API, the gallery and the inbox', async () => {
    const both = await buildApp(h.runtime.deps, {
      extraRoutes: [
        (a) => devRoutes(a, h.runtime.deps),
        (a) => devInboxRoutes(a, { dir: inboxDir(h.dataDir) }),
      ],
    });
    try {
      const types = [
        'application/json',
        'APPLICATION/JSON; charset=utf-8',
        'application/json ; x=1',
        ' application/json',
        'application/json, text/plain',
        'application/jsonx',
        'text/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      ];
      for (const type of types) {
        const isJson = isJsonContentType(type);
        const headers = { 'content-type': type };
        const answers = {
          send: await both.inject({
            method: 'POST',
            url: '/v1/send',
            headers: { ...headers, ...bearer(brand.apiKey) },
            payload: '[]',
          }),
          render: await both.inject({
            method: 'POST',
            url: '/dev/templates/nope/render',
            headers,
            payload: '{"data":{}}',
          }),
          inbox: await both.inject({
            method: 'DELETE',
            url: `/dev/inbox/api/messages/msg_${'0'.repeat(26)}`,
            headers,
            payload: '{}',
          }),
        };
        for (const [route, res] of Object.entries(answers)) {
          expect(res.statusCode === 415, `${route} ${JSON.stringify(type)}: ${res.statusCode}`).toBe(!isJson);
          if (!isJson) expect(res.json().error.code).toBe('unsupported_media_type');
        }
      }
      // Without Content-Type: the inbox's DELETEs take no body; the POST routes need one.
      const none = { 'content-type': undefined };
      const inbox = await both.inject({
        method: 'DELETE',
        url: `/dev/inbox/api/messages/msg_${'0'.repeat(26)}`,
      });
      expect(inbox.statusCode).toBe(404);
      const render = await both.inject({ method: 'POST', url: '/dev/templates/nope/render', headers: none });
      expect(render.statusCode).toBe(415);
      const send = await both.inject({
        method: 'POST',
        url: '/v1/send',
        headers: { ...none, ...bearer(brand.apiKey) },
      });
      expect(send.statusCode).toBe(415);

      // Pages: the same headers on the gallery and the inbox.
      for (const url of [
        '/dev/templates',
        '/dev/templates/login-code',
        '/dev/templates/nope',
        '/dev/inbox',
      ]) {
        const page = await both.inject({ method: 'GET', url });
        for (const [name, value] of Object.entries(DEV_PAGE_HEADERS))
          expect(page.headers[name], `${url} ${name}`).toBe(value);
      }
    } finally {
      await both.close();
    }
  });
});

describe('who may see the dev pages', () => {
  it('answers only requests addressed to a loopback name (no DNS rebinding): others get 404', async () => {
    const dir = inboxDir(h.dataDir);
    const both = await buildApp(h.runtime.deps, {
      extraRoutes: [
        (a) => devRoutes(a, h.runtime.deps, { send: { isOn: true } }),
        (a) => devInboxRoutes(a, { dir }),
      ],
    });
    try {
      const requests = [
        ...[
          '/dev/templates',
          '/dev/templates/app.js',
          '/dev/templates/login-code',
          '/dev/templates/login-code?project=prj_x',
          '/dev/inbox',
          '/dev/inbox.json',
          `/dev/inbox/msg_${'0'.repeat(26)}`,
        ].map((url) => ({ method: 'GET' as const, url })),
        ...['/dev/templates/login-code/render', '/dev/templates/login-code/send'].map((url) => ({
          method: 'POST' as const,
          url,
        })),
      ];
      for (const { method, url } of requests) {
        for (const host of [
          'attacker.example',
          'attacker.example:3000',
          '10.0.0.5:3000',
          'localhost.attacker.example',
        ]) {
          // A same-origin request as the rebound page would make it: only the Host tells.
          const res = await both.inject({
            method,
            url,
            headers: { host, origin: `http://${host}`, 'content-type': 'application/json' },
            ...(method === 'POST' && {
              payload: JSON.stringify({ data: { code: '1' }, to: 'x@example.com' }),
            }),
          });
          expect(res.statusCode, `${host} ${method} ${url}`).toBe(404);
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
        const res = await both.inject({ method: 'GET', url: '/dev/inbox.json', headers: { host } });
        expect(res.statusCode, host).toBe(200);
        const page = await both.inject({
          method: 'GET',
          url: '/dev/templates/login-code',
          headers: { host },
        });
        expect(page.statusCode, host).toBe(200);
      }
    } finally {
      await both.close();
    }
  });

  it('serves them from mailsvc start on a loopback bind, not on another bind unless MAILSVC_DEV_PAGES=on, and the inbox only with the capture transport', () => {
    const at = (env: Record<string, string>, kind: 'pglite' | 'postgres' = 'pglite') =>
      devPagesFor(loadConfig(env), 'start', kind);
    const on = { isOn: true };
    const off = { isOn: false, reason: expect.any(String) };
    expect(at({})).toEqual({ templates: true, inbox: true, gallerySend: on });
    expect(at({ HOST: '0.0.0.0' })).toEqual({ templates: false, inbox: false });
    expect(at({ HOST: '0.0.0.0', MAILSVC_DEV_PAGES: 'on' })).toMatchObject({
      templates: true,
      inbox: true,
      gallerySend: on,
      warning: expect.stringContaining('non-loopback'),
    });
    expect(at({ MAILSVC_DEV_PAGES: 'off' })).toEqual({ templates: false, inbox: false });
    expect(at({ MAILSVC_SMTP_URL: 'smtp://relay.example:587' })).toEqual({
      templates: true,
      inbox: false,
      gallerySend: off,
    });
    // PostgreSQL: the inbox (this process captures), but no gallery send (another worker may relay).
    expect(at({}, 'postgres')).toEqual({ templates: true, inbox: true, gallerySend: off });
    expect(devPagesFor(loadConfig({}), 'api', 'postgres')).toEqual({ templates: false, inbox: false });
  });
});

describe("the gallery's project select", () => {
  it('lists the first 500 projects, and a chosen project past them too, selected', async () => {
    // 500 projects of a tenant named before the brand's ("Acme"): the brand's is past the list.
    const { tenant } = await h.admin('tenants.create', { name: 'AAA many', plan: brand.planId });
    const db = h.runtime.deps.db;
    await sql`INSERT INTO projects (id, tenant_id, name)
      SELECT 'prj_many_' || lpad(n::text, 3, '0'), ${tenant.id}, 'Many ' || lpad(n::text, 3, '0')
      FROM generate_series(1, 500) AS n`.execute(db);
    try {
      const res = await get(`/dev/templates/login-code?project=${brand.projectId}`);
      expect(res.statusCode).toBe(200);
      const options = [...res.body.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
      expect(options).toHaveLength(1 + 500 + 1); // the example, the list, the chosen one
      expect(options.at(-1)).toBe(brand.projectId);
      expect(res.body).toMatch(new RegExp(`<option value="${brand.projectId}"[^>]* selected>`));
      const unchosen = await get('/dev/templates/login-code');
      expect(unchosen.body.match(/<option value="/g)).toHaveLength(1 + 500);
      expect(unchosen.body).not.toContain(`<option value="${brand.projectId}"`);
    } finally {
      await db
        .updateTable('projects')
        .set({ deleted_at: new Date() })
        .where('tenant_id', '=', tenant.id)
        .execute();
    }
  });
});
