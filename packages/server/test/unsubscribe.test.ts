import { createHmac, randomBytes } from 'node:crypto';
import {
  bearer,
  createHarness,
  type Harness,
  recipientRow,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnsubscribeToken } from '../src/domain/consent/unsubscribe-token.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const ONE_CLICK = 'List-Unsubscribe=One-Click';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const tokenFor = (environmentId: string, email: string, key = h.runtime.deps.keys.unsubscribe) =>
  createUnsubscribeToken(key, { environmentId, email, scope: 'app_notifications' });

const get = (token: string) => h.request({ method: 'GET', url: `/u/${token}` });
const post = (token: string, payload = ONE_CLICK, headers: Record<string, string> = FORM, query = '') =>
  h.request({ method: 'POST', url: `/u/${token}${query}`, headers, payload });

const recipient = (environmentId: string, email: string) => recipientRow(h, environmentId, email);

const auditEvents = (tenantId: string) =>
  h.runtime.deps.db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('action', '=', 'recipient.unsubscribed')
    .execute();

function send(apiKey: string, body: unknown) {
  return h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

function expectPageHeaders(res: Awaited<ReturnType<typeof get>>) {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-robots-tag']).toBe('noindex');
  expect(res.headers['content-security-policy']).toMatch(
    /^default-src 'none'; style-src 'unsafe-inline'; form-action 'self'/,
  );
  expect(res.headers['set-cookie']).toBeUndefined();
  expect(res.headers.location).toBeUndefined();
}

describe('GET /u/:token', () => {
  it('shows a confirmation page with the masked address and the project, and changes nothing', async () => {
    const t = await seedScope(h);
    await h.admin('projects.update', { id: t.projectId, displayName: 'Acme <Cloud>' });
    const res = await get(tokenFor(t.environmentId, 'jane.doe@example.com'));
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res);
    expect(res.body).toContain('j***@example.com');
    expect(res.body).not.toContain('jane.doe');
    expect(res.body).toContain('notification emails from Acme &lt;Cloud&gt;');
    expect(res.body).not.toContain('<Cloud>');
    expect(res.body).toContain('Security and account emails');
    expect(res.body).toContain('<form method="post" action="?via=page">');
    expect(res.body).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(res.body).not.toMatch(/<script|<link|src=|https?:\/\//);
    expect(await recipient(t.environmentId, 'jane.doe@example.com')).toBeUndefined();
  });

  it("uses the project's name when it has no display name", async () => {
    const res = await get(tokenFor(s.environmentId, 'jane@example.com'));
    expect(res.body).toContain('notification emails from Acme App');
  });

  it('says so when the address is already unsubscribed, without a form', async () => {
    const token = tokenFor(s.environmentId, 'already@example.com');
    await post(token);
    const res = await get(token);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('You are unsubscribed');
    expect(res.body).not.toContain('<form');
  });
});

describe('POST /u/:token', () => {
  it('unsubscribes on a form-encoded one-click POST; notifications are refused, security mail is not', async () => {
    const t = await seedScope(h);
    const res = await post(tokenFor(t.environmentId, 'jane@example.com'));
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res);
    expect(res.body).toContain('You are unsubscribed');
    expect(res.body).toContain('j***@example.com');
    const row = await recipient(t.environmentId, 'jane@example.com');
    expect(row).toMatchObject({ tenant_id: t.tenantId, resubscribed_at: null });
    expect(row?.unsubscribed_at?.toISOString()).toBe(h.clock.now().toISOString());

    const mention = await send(t.apiKey, { templateId: 'mention', to: 'jane@example.com', data: {} });
    expect(mention.statusCode, mention.body).toBe(403);
    expect(mention.json().error.code).toBe('recipient_unsubscribed');
    const login = await send(t.apiKey, {
      templateId: 'login-code',
      to: 'jane@example.com',
      data: { code: '123456' },
    });
    expect(login.statusCode, login.body).toBe(200);

    const events = await auditEvents(t.tenantId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: 'recipient', target_type: 'recipient' });
    expect(events[0]!.details).toEqual({
      environmentId: t.environmentId,
      emailMasked: 'j***@example.com',
      scope: 'app_notifications',
      source: 'one_click',
    });
    expect(JSON.stringify(events[0])).not.toContain('jane@');
  });

  it('unsubscribes on a multipart/form-data one-click POST, as Gmail sends it', async () => {
    const boundary = '----mailsvcBoundary7MA4YWxkTrZu0gW';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="List-Unsubscribe"',
      '',
      'One-Click',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await post(tokenFor(s.environmentId, 'multi@example.com'), body, {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.statusCode).toBe(200);
    expect((await recipient(s.environmentId, 'multi@example.com'))?.unsubscribed_at).toBeInstanceOf(Date);
  });

  it("records the page's button as source page", async () => {
    const t = await seedScope(h);
    const res = await post(tokenFor(t.environmentId, 'button@example.com'), ONE_CLICK, FORM, '?via=page');
    expect(res.statusCode).toBe(200);
    const events = await auditEvents(t.tenantId);
    expect(events.map((e) => (e.details as { source: string }).source)).toEqual(['page']);
  });

  it('is idempotent: a second POST keeps the first time and writes no second audit event', async () => {
    const t = await seedScope(h);
    const token = tokenFor(t.environmentId, 'twice@example.com');
    const first = h.clock.now();
    expect((await post(token)).statusCode).toBe(200);
    h.clock.advance(60_000);
    const again = await post(token);
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('You are unsubscribed');
    const row = await recipient(t.environmentId, 'twice@example.com');
    expect(row?.unsubscribed_at?.toISOString()).toBe(first.toISOString());
    expect(row?.updated_at.toISOString()).toBe(first.toISOString());
    expect(await auditEvents(t.tenantId)).toHaveLength(1);
  });

  it('unsubscribes again after a resubscribe, with a new time and a new audit event', async () => {
    const t = await seedScope(h);
    const token = tokenFor(t.environmentId, 'again@example.com');
    await post(token);
    h.clock.advance(1000);
    await h.runtime.deps.db
      .updateTable('recipients')
      .set({ resubscribed_at: h.clock.now() })
      .where('environment_id', '=', t.environmentId)
      .execute();
    h.clock.advance(1000);
    await post(token);
    const row = await recipient(t.environmentId, 'again@example.com');
    expect(row?.unsubscribed_at?.toISOString()).toBe(h.clock.now().toISOString());
    expect(await auditEvents(t.tenantId)).toHaveLength(2);
  });

  it('unsubscribes on a POST with a genuine token and an empty or different form body (the token is the authority)', async () => {
    const empty = await h.request({
      method: 'POST',
      url: `/u/${tokenFor(s.environmentId, 'empty@example.com')}`,
    });
    expect(empty.statusCode).toBe(200);
    expect(await recipient(s.environmentId, 'empty@example.com')).toBeDefined();
    const other = await post(tokenFor(s.environmentId, 'other@example.com'), 'foo=bar');
    expect(other.statusCode).toBe(200);
    expect(await recipient(s.environmentId, 'other@example.com')).toBeDefined();
  });

  it('stores the address normalised', async () => {
    await post(tokenFor(s.environmentId, 'Mixed.Case@Example.COM'));
    expect(await recipient(s.environmentId, 'mixed.case@example.com')).toBeDefined();
  });
});

describe('unsubscribe errors', () => {
  const NOT_VALID = 'This unsubscribe link is not valid';

  async function expectInvalid(token: string, email: string, environmentId = s.environmentId) {
    for (const res of [await get(token), await post(token)]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain(NOT_VALID);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(await recipient(environmentId, email)).toBeUndefined();
  }

  it('answers a /u/ path that does not even decode (bad percent-encoding) with the invalid-link page and its headers, not the JSON API error', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await h.request({ method, url: '/u/%E0%A4%A', headers: FORM, payload: ONE_CLICK });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain(NOT_VALID);
      expectPageHeaders(res);
    }
  });

  it('answers 404 for a forged token', async () => {
    const payload = Buffer.from(`${s.environmentId}\nforged@example.com\napp_notifications`).toString(
      'base64url',
    );
    await expectInvalid(`${payload}.${randomBytes(32).toString('base64url')}`, 'forged@example.com');
  });

  it('answers 404 for a token of the earlier format whose address part was swapped', async () => {
    const key = h.runtime.deps.keys.unsubscribe;
    const mac = createHmac('sha256', key)
      .update(`${s.environmentId}\nmine@example.com\napp_notifications`)
      .digest();
    const swapped = Buffer.from(`${s.environmentId}\nvictim@example.com\napp_notifications`).toString(
      'base64url',
    );
    await expectInvalid(`${swapped}.${mac.toString('base64url')}`, 'victim@example.com');
  });

  it('still honours a genuine token of the earlier format (links already in inboxes)', async () => {
    const key = h.runtime.deps.keys.unsubscribe;
    const payload = `${s.environmentId}\nlegacy@example.com\napp_notifications`;
    const mac = createHmac('sha256', key).update(payload).digest();
    const res = await post(`${Buffer.from(payload).toString('base64url')}.${mac.toString('base64url')}`);
    expect(res.statusCode, res.body).toBe(200);
    expect((await recipient(s.environmentId, 'legacy@example.com'))?.unsubscribed_at).toBeTruthy();
  });

  it('answers 404 for a token signed with another key', async () => {
    await expectInvalid(
      tokenFor(s.environmentId, 'otherkey@example.com', randomBytes(32)),
      'otherkey@example.com',
    );
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['an empty signature', 'abc.'],
    ['a very long token', `${'A'.repeat(3000)}.${'B'.repeat(43)}`],
  ])('answers 404 for %s', async (_name, token) => {
    for (const res of [await get(token), await post(token)]) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain(NOT_VALID);
    }
  });

  it('answers 404 when the environment was deleted, and changes nothing', async () => {
    const t = await seedScope(h);
    const token = tokenFor(t.environmentId, 'gone@example.com');
    await h.admin('environments.delete', { id: t.environmentId });
    await expectInvalid(token, 'gone@example.com', t.environmentId);
  });

  it('answers 404 for a token naming an environment that never existed', async () => {
    await expectInvalid(
      tokenFor('env_00000000000000000000000000', 'nobody@example.com'),
      'nobody@example.com',
      'env_00000000000000000000000000',
    );
  });

  it("a token of environment A does not touch environment B's recipient", async () => {
    const a = await seedScope(h);
    const b = await seedScope(h);
    await post(tokenFor(a.environmentId, 'shared@example.com'));
    expect(await recipient(a.environmentId, 'shared@example.com')).toBeDefined();
    expect(await recipient(b.environmentId, 'shared@example.com')).toBeUndefined();
    const res = await send(b.apiKey, { templateId: 'mention', to: 'shared@example.com', data: {} });
    expect(res.statusCode, res.body).toBe(200);
    expect(await auditEvents(b.tenantId)).toHaveLength(0);
  });

  it('refuses other content types with 415 and changes nothing', async () => {
    const token = tokenFor(s.environmentId, 'plain@example.com');
    for (const type of ['text/plain', 'application/json']) {
      const res = await post(token, type === 'application/json' ? '{}' : ONE_CLICK, { 'content-type': type });
      expect(res.statusCode, type).toBe(415);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    expect(await recipient(s.environmentId, 'plain@example.com')).toBeUndefined();
  });

  it('refuses a body over 8 KiB with 413 and changes nothing', async () => {
    const token = tokenFor(s.environmentId, 'big@example.com');
    const res = await post(token, `${ONE_CLICK}&pad=${'x'.repeat(9000)}`);
    expect(res.statusCode).toBe(413);
    expect(await recipient(s.environmentId, 'big@example.com')).toBeUndefined();
  });

  it('answers 405 with Allow for other methods', async () => {
    const res = await h.request({ method: 'PUT', url: `/u/${tokenFor(s.environmentId, 'put@example.com')}` });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.json().error.code).toBe('method_not_allowed');
    expect(await recipient(s.environmentId, 'put@example.com')).toBeUndefined();
  });

  it('never writes the token or the full address to the logs', async () => {
    const token = tokenFor(s.environmentId, 'logged.person@example.com');
    await get(token);
    await post(token);
    await post(`${token}x`);
    const logs = h.logs.join('');
    expect(logs).toContain('"path":"/u/*"');
    expect(logs).not.toContain(token.slice(3, 40));
    expect(logs).not.toContain('logged.person');
    expect(logs).toContain('l***@example.com');
  });

  it('leaves the rest of the API JSON-only', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), ...FORM },
      payload: ONE_CLICK,
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('unsupported_media_type');
  });
});
