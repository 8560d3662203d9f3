import { ADMIN_TOKEN, createHarness, type Harness } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const adminPost = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  h.request({
    method: 'POST',
    url,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
  });

describe('HTTP conventions', () => {
  it('answers an unknown path with 404 not_found in the error envelope', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body).toEqual({
      ok: false,
      error: { code: 'not_found', message: expect.any(String), requestId: res.headers['x-request-id'] },
    });
  });

  it('gives every response an X-Request-Id', async () => {
    const res = await h.request({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('answers /readyz when the database is reachable', async () => {
    const res = await h.request({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('answers a wrong method with 405 and Allow before checking the admin token', async () => {
    const res = await h.request({ method: 'GET', url: '/admin/v1/plans/create' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json().error.code).toBe('method_not_allowed');
    const del = await h.request({ method: 'DELETE', url: '/v1/quota' });
    expect(del.statusCode).toBe(405);
  });

  it('refuses a POST that is not JSON with 415 unsupported_media_type', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await adminPost('/admin/v1/plans/create', 'id=x', { 'content-type': type });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error.code).toBe('unsupported_media_type');
    }
    const none = await h.request({
      method: 'POST',
      url: '/admin/v1/plans/create',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(none.statusCode).toBe(415);
  });

  it('refuses a body over 256 KiB with 413 payload_too_large', async () => {
    const res = await adminPost('/admin/v1/plans/create', {
      id: 'x'.repeat(300 * 1024),
      monthlyLimit: 1,
      overageAllowed: false,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it('refuses broken JSON with 400 invalid_request', async () => {
    const res = await adminPost('/admin/v1/plans/create', '{"id": ');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', details: [{ path: '/' }] });
  });

  it('refuses an empty JSON body with 400 invalid_request', async () => {
    const res = await adminPost('/admin/v1/plans/create', '');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('refuses __proto__ keys with 400 invalid_request', async () => {
    const res = await adminPost('/admin/v1/plans/create', '{"__proto__": {"x": 1}, "id": "p"}');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('refuses unknown fields and wrong types with 400 invalid_request listing every problem', async () => {
    const res = await adminPost('/admin/v1/plans/create', {
      id: 'ok-plan',
      monthlyLimit: '5',
      overageAllowed: 'no',
      extra: 1,
    });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: '/extra', message: 'is not an allowed property' },
        { path: '/monthlyLimit', message: expect.any(String) },
        { path: '/overageAllowed', message: expect.any(String) },
      ]),
    );
  });

  it('answers an unexpected failure with 500 internal and no internals', async () => {
    const app = await buildApp(h.runtime.deps, {
      extraRoutes: [
        (a) =>
          a.get('/boom', async () => {
            throw new Error('secret internals: password=hunter2');
          }),
      ],
    });
    const res = await app.inject({ method: 'GET', url: '/boom' });
    await app.close();
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body.error.code).toBe('internal');
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(h.logs.join('')).toContain(body.error.requestId);
  });

  it('logs one line per request, with method, path without the query, status and request id', async () => {
    const res = await h.request({
      method: 'GET',
      url: '/healthz?token=abc',
      headers: { authorization: 'Bearer x' },
    });
    const lines = h.logs.map((l) => JSON.parse(l)).filter((l) => l.reqId === res.headers['x-request-id']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET', path: '/healthz' },
      res: { statusCode: res.statusCode },
    });
    expect(JSON.stringify(lines[0])).not.toContain('abc');
  });
});

describe('admin API', () => {
  it('refuses a missing or wrong admin token with 401 invalid_admin_token', async () => {
    const none = await h.request({ method: 'POST', url: '/admin/v1/domains/list', payload: {}, headers: {} });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('invalid_admin_token');
    const wrong = await adminPost('/admin/v1/domains/list', {}, { authorization: 'Bearer wrong' });
    expect(wrong.statusCode).toBe(401);
  });

  it('runs the same use-cases as the CLI', async () => {
    const plan = await adminPost('/admin/v1/plans/create', {
      id: 'api-plan',
      monthlyLimit: 50,
      overageAllowed: true,
    });
    expect(plan.statusCode).toBe(200);
    expect(plan.json()).toMatchObject({
      ok: true,
      plan: { id: 'api-plan', monthlyLimit: 50, overageAllowed: true },
    });
    const tenant = (await adminPost('/admin/v1/tenants/create', { name: 'T', plan: 'api-plan' })).json()
      .tenant;
    expect(tenant.id).toMatch(/^ten_/);
    const project = (
      await adminPost('/admin/v1/projects/create', {
        tenant: tenant.id,
        name: 'P',
        fromEmail: 'Hello@Example.com',
      })
    ).json().project;
    expect(project.fromEmail).toBe('hello@example.com');
    const env = (
      await adminPost('/admin/v1/environments/create', { project: project.id, name: 'prod' })
    ).json().environment;
    const key = (await adminPost('/admin/v1/keys/create', { environment: env.id })).json();
    expect(key.apiKey).toMatch(/^msk_[0-9A-Z]{26}_[0-9A-Za-z]{43}$/);
    const quota = await h.request({
      method: 'GET',
      url: '/v1/quota',
      headers: { authorization: `Bearer ${key.apiKey}` },
    });
    expect(quota.json().quota.planId).toBe('api-plan');
    const list = (await adminPost('/admin/v1/keys/list', { environment: env.id })).json();
    expect(list.keys).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(key.apiKey.slice(-43));
    const usage = (await adminPost('/admin/v1/usage/show', { tenant: tenant.id })).json();
    expect(usage.usage).toMatchObject({
      tenantId: tenant.id,
      period: '2026-11',
      used: 0,
      limit: 50,
      status: 'available',
    });
  });

  it('answers a duplicate plan with 409 conflict and an unknown record with 404 not_found', async () => {
    await adminPost('/admin/v1/plans/create', { id: 'dup', monthlyLimit: 1, overageAllowed: false });
    const dup = await adminPost('/admin/v1/plans/create', {
      id: 'dup',
      monthlyLimit: 1,
      overageAllowed: false,
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('conflict');
    const missing = await adminPost('/admin/v1/tenants/create', { name: 'x', plan: 'no-such-plan' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
  });

  it('refuses CR/LF in sender names', async () => {
    const tenant = (await adminPost('/admin/v1/tenants/create', { name: 'T', plan: 'dup' })).json().tenant;
    const res = await adminPost('/admin/v1/projects/create', {
      tenant: tenant.id,
      name: 'P',
      fromName: 'Evil\r\nBcc: x@y.z',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { path: '/fromName', message: expect.stringContaining('control') },
    ]);
  });

  it('refuses names with CR, LF, NUL, C1, bidi or invisible characters with 400 invalid_request', async () => {
    for (const name of ['Acme\r\nInc', 'Acme\u0000', 'Acme\u0085', 'Ac\u202Eme', 'Ac\u200bme']) {
      const res = await adminPost('/admin/v1/tenants/create', { name, plan: 'dup' });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', details: [{ path: '/name' }] });
    }
    const ok = await adminPost('/admin/v1/tenants/create', {
      name: 'Société Générale 株式会社',
      plan: 'dup',
    });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses trial ends PostgreSQL would refuse or move (year 0, ±23:59, a leap second), and stores the rest in UTC', async () => {
    for (const trialEndsAt of [
      '0000-01-01T00:00:00Z',
      '2026-12-01T00:00:00+23:59',
      '2026-12-01T00:00:00-23:59',
      '9999-12-31T23:59:60Z',
      '2026-12-01',
    ]) {
      const res = await adminPost('/admin/v1/tenants/create', { name: 'T', plan: 'dup', trialEndsAt });
      expect(res.statusCode, trialEndsAt).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        details: [{ path: '/trialEndsAt' }],
      });
    }
    const ok = await adminPost('/admin/v1/tenants/create', {
      name: 'T',
      plan: 'dup',
      trialEndsAt: '2026-12-01T01:00:00+01:00',
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().tenant.trialEndsAt).toBe('2026-12-01T00:00:00.000Z');
  });

  it('registers sending domains with one owner and changes their status', async () => {
    const tenant = (await adminPost('/admin/v1/tenants/create', { name: 'T', plan: 'dup' })).json().tenant;
    const added = await adminPost('/admin/v1/domains/add', { domain: 'Mail.Example.COM', tenant: tenant.id });
    expect(added.json().domain).toMatchObject({
      domain: 'mail.example.com',
      scope: 'tenant',
      status: 'pending',
    });
    const again = await adminPost('/admin/v1/domains/add', { domain: 'mail.example.com', tenant: tenant.id });
    expect(again.statusCode).toBe(409);
    const both = await adminPost('/admin/v1/domains/add', { domain: 'b.example.com' });
    expect(both.statusCode).toBe(400);
    const set = await adminPost('/admin/v1/domains/set-status', {
      domain: 'mail.example.com',
      status: 'verified',
    });
    expect(set.json().domain.status).toBe('verified');
  });
});
