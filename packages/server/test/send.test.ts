import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import {
  backend,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessages } from '../src/db/repositories/send.js';
import { acceptItem } from './accept-item.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const LOGIN = { templateId: 'login-code', to: 'jane@example.com', data: { code: '482913' } };

/** POST /v1/send, through the harness, or straight into one API process (`via`, e.g. a replica). */
function send(apiKey: string, body: unknown, headers: Record<string, string> = {}, via?: FastifyInstance) {
  const request = {
    method: 'POST' as const,
    url: '/v1/send',
    headers: { ...bearer(apiKey), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  };
  return via ? via.inject(request) : h.request(request);
}

async function expectError(res: Awaited<ReturnType<typeof send>>, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code).toBe(code);
  return res.json().error;
}

const countMessages = async (environmentId: string) =>
  Number(
    (
      await h.runtime.deps.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('environment_id', '=', environmentId)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function setRecipient(
  environmentId: string,
  tenantId: string,
  email: string,
  fields: Record<string, Date | null>,
) {
  await h.runtime.deps.db
    .insertInto('recipients')
    .values({ environment_id: environmentId, tenant_id: tenantId, email, ...fields })
    .onConflict((oc) => oc.columns(['environment_id', 'email']).doUpdateSet(fields))
    .execute();
}

describe('POST /v1/send accepts', () => {
  it('queues a message in one transaction: message row, accepted event, usage counters', async () => {
    const t = await seedScope(h);
    const res = await send(t.apiKey, { ...LOGIN, to: '  Jane@Example.COM ' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ok: true,
      status: 'accepted',
      messageId: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
      idempotent: false,
    });
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', body.messageId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      tenant_id: t.tenantId,
      environment_id: t.environmentId,
      template_id: 'login-code',
      template_version: 'v1',
      category: 'security',
      status: 'queued',
      to_email: 'jane@example.com',
      from_email: 'notifications@mailsvc.test',
      sending_domain: 'mailsvc.test',
    });
    expect(row.data).toMatchObject({ code: '482913', heading: 'Your login code' });
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(3_600_000);
    const events = await h.runtime.deps.db
      .selectFrom('message_events')
      .select('type')
      .where('message_id', '=', body.messageId)
      .execute();
    expect(events).toEqual([{ type: 'accepted' }]);
    const quota = (await h.request({ method: 'GET', url: '/v1/quota', headers: bearer(t.apiKey) })).json()
      .quota;
    expect(quota.monthly.used).toBe(1);
    expect(quota.environment.usedThisMonth).toBe(1);
  });

  it('uses the latest published version by default and a named one when given', async () => {
    const a = await send(s.apiKey, { templateId: 'welcome', to: 'a@example.com', data: {} });
    const b = await send(s.apiKey, {
      templateId: 'welcome',
      to: 'a@example.com',
      data: {},
      templateVersion: 'v1',
    });
    const versions = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['id', 'template_version'])
      .where('id', 'in', [a.json().messageId, b.json().messageId])
      .execute();
    expect(Object.fromEntries(versions.map((v) => [v.id, v.template_version]))).toEqual({
      [a.json().messageId]: 'v2',
      [b.json().messageId]: 'v1',
    });
  });

  it('never logs the recipient address', async () => {
    await send(s.apiKey, { ...LOGIN, to: 'secret.person@example.com' });
    expect(h.logs.join('')).not.toContain('secret.person');
    expect(h.logs.join('')).toContain('s***@example.com');
  });
});

describe('POST /v1/send errors', () => {
  it('refuses a body without templateId, to or data with 400 invalid_request listing each', async () => {
    const err = await expectError(await send(s.apiKey, {}), 400, 'invalid_request');
    expect(err.details.map((d: { path: string }) => d.path).sort()).toEqual(['/data', '/templateId', '/to']);
  });

  it.each([
    ['a list of recipients', { ...LOGIN, to: 'a@example.com, b@example.com' }, '/to'],
    ['a display name', { ...LOGIN, to: 'Jane <jane@example.com>' }, '/to'],
    ['an array for to', { ...LOGIN, to: ['jane@example.com'] }, '/to'],
    ['data that is not an object', { ...LOGIN, data: 'x' }, '/data'],
    ['an unknown field', { ...LOGIN, cc: 'x@example.com' }, '/cc'],
    ['a number for templateId', { ...LOGIN, templateId: 5 }, '/templateId'],
  ])('refuses %s with 400 invalid_request', async (_name, body, path) => {
    const err = await expectError(await send(s.apiKey, body), 400, 'invalid_request');
    expect(err.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses a 121-character or non-ASCII Idempotency-Key with 400 invalid_request', async () => {
    await expectError(
      await send(s.apiKey, LOGIN, { 'idempotency-key': 'k'.repeat(121) }),
      400,
      'invalid_request',
    );
    expect((await send(s.apiKey, LOGIN, { 'idempotency-key': 'k'.repeat(120) })).statusCode).toBe(200);
  });

  it('refuses an unknown template with 404 template_not_found', async () => {
    await expectError(await send(s.apiKey, { ...LOGIN, templateId: 'nope' }), 404, 'template_not_found');
  });

  it('refuses an unknown or draft version with 404 template_version_not_found', async () => {
    await expectError(
      await send(s.apiKey, { ...LOGIN, templateVersion: 'v9' }),
      404,
      'template_version_not_found',
    );
    await expectError(
      await send(s.apiKey, {
        templateId: 'activity-digest',
        to: 'a@example.com',
        data: {},
        templateVersion: 'v2',
      }),
      404,
      'template_version_not_found',
    );
  });

  it('refuses bad template data with 400 invalid_template_data and every path under /data', async () => {
    const err = await expectError(
      await send(s.apiKey, {
        templateId: 'magic-link',
        to: 'a@example.com',
        data: { actionButton: { url: 'javascript:alert(1)' }, heading: 'x'.repeat(181), extra: 1 },
      }),
      400,
      'invalid_template_data',
    );
    expect(err.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '/data/actionButton/url',
      '/data/extra',
      '/data/heading',
    ]);
  });

  it('refuses a bad from, CR/LF in from, fromName and replyTo, and a 121-character fromName', async () => {
    await expectError(
      await send(s.apiKey, { ...LOGIN, from: 'not-an-address' }),
      400,
      'invalid_from_address',
    );
    await expectError(
      await send(s.apiKey, { ...LOGIN, from: 'a@mailsvc.test\r\nBcc: x@evil.example' }),
      400,
      'invalid_from_address',
    );
    await expectError(
      await send(s.apiKey, { ...LOGIN, fromName: 'Acme\r\nBcc: x@evil.example' }),
      400,
      'invalid_from_name',
    );
    await expectError(
      await send(s.apiKey, { ...LOGIN, fromName: 'a'.repeat(121) }),
      400,
      'invalid_from_name',
    );
    // NUL can never be stored: refused with the body's shape (step 2), with the field's path.
    const nul = await send(s.apiKey, { ...LOGIN, fromName: 'Acme\u0000' });
    await expectError(nul, 400, 'invalid_request');
    expect(nul.json().error.details).toEqual([
      { path: '/fromName', message: expect.stringContaining('NUL') },
    ]);
    for (const spoof of ['PayPal \u202Emoc.live', 'Pay\u200bPal', 'Acme\u0085', 'Pay\u2066Pal\u2069']) {
      await expectError(await send(s.apiKey, { ...LOGIN, fromName: spoof }), 400, 'invalid_from_name');
    }
    await expectError(
      await send(s.apiKey, { ...LOGIN, replyTo: 'help@acme.test\nBcc: x@evil.example' }),
      400,
      'invalid_reply_to',
    );
    expect(
      (await send(s.apiKey, { ...LOGIN, fromName: 'a'.repeat(120), replyTo: 'help@acme.test' })).statusCode,
    ).toBe(200);
  });

  it('refuses an unverified custom sending domain with 403 sending_domain_not_ready, and a from off the domain with 403 from_domain_not_allowed', async () => {
    const t = await seedScope(h);
    const domain = `mail-${t.projectId.slice(-8).toLowerCase()}.example.com`;
    await h.admin('domains.add', { domain, project: t.projectId });
    await expectError(await send(t.apiKey, LOGIN), 403, 'sending_domain_not_ready');
    await h.admin('domains.set-status', { domain, status: 'verified' });
    const ok = await send(t.apiKey, { ...LOGIN, from: `hello@${domain}` });
    expect(ok.statusCode).toBe(200);
    await expectError(
      await send(t.apiKey, { ...LOGIN, from: 'hello@other.example.com' }),
      403,
      'from_domain_not_allowed',
    );
    await expectError(
      await send(s.apiKey, { ...LOGIN, from: 'hello@other.example.com' }),
      403,
      'from_domain_not_allowed',
    );
  });

  it('defaults the From to notifications@ the custom sending domain when nothing else is set', async () => {
    const t = await seedScope(h);
    const domain = `news-${t.projectId.slice(-8).toLowerCase()}.example.com`;
    await h.admin('domains.add', { domain, project: t.projectId });
    await h.admin('domains.set-status', { domain, status: 'verified' });
    const res = await send(t.apiKey, LOGIN);
    expect(res.statusCode, res.body).toBe(200);
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['from_email', 'sending_domain'])
      .where('id', '=', res.json().messageId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ from_email: `notifications@${domain}`, sending_domain: domain });
  });

  it('refuses a second sending domain for the same project with domain_already_added', async () => {
    const t = await seedScope(h);
    const suffix = t.projectId.slice(-8).toLowerCase();
    await h.admin('domains.add', { domain: `one-${suffix}.example.com`, project: t.projectId });
    await expect(
      h.admin('domains.add', { domain: `two-${suffix}.example.com`, project: t.projectId }),
    ).rejects.toMatchObject({
      code: 'domain_already_added',
    });
    // an environment of that project may have its own
    await h.admin('domains.add', { domain: `env-${suffix}.example.com`, environment: t.environmentId });
  });

  it('refuses paused and blocked environments with 403 app_paused and app_blocked', async () => {
    const t = await seedScope(h);
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'paused' });
    await expectError(await send(t.apiKey, LOGIN), 403, 'app_paused');
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'blocked' });
    await expectError(await send(t.apiKey, LOGIN), 403, 'app_blocked');
  });

  it('refuses a complained recipient for every template with 403 recipient_complained', async () => {
    const t = await seedScope(h);
    await setRecipient(t.environmentId, t.tenantId, 'c@example.com', {
      complained_at: new Date('2026-11-01T00:00:00Z'),
    });
    await expectError(await send(t.apiKey, { ...LOGIN, to: 'c@example.com' }), 403, 'recipient_complained');
  });

  it('refuses an unsubscribed recipient only for notification templates with 403 recipient_unsubscribed', async () => {
    const t = await seedScope(h);
    await setRecipient(t.environmentId, t.tenantId, 'u@example.com', {
      unsubscribed_at: new Date('2026-11-01T00:00:00Z'),
    });
    await expectError(
      await send(t.apiKey, { templateId: 'mention', to: 'u@example.com', data: {} }),
      403,
      'recipient_unsubscribed',
    );
    expect((await send(t.apiKey, { ...LOGIN, to: 'u@example.com' })).statusCode).toBe(200);
    await setRecipient(t.environmentId, t.tenantId, 'u@example.com', {
      resubscribed_at: new Date('2026-11-02T00:00:00Z'),
    });
    expect((await send(t.apiKey, { templateId: 'mention', to: 'u@example.com', data: {} })).statusCode).toBe(
      200,
    );
  });

  it('refuses a recipient in bounce cooldown or suppression with 403 recipient_suppressed', async () => {
    const t = await seedScope(h);
    await setRecipient(t.environmentId, t.tenantId, 'b@example.com', {
      cooldown_until: new Date('2026-11-23T00:00:00Z'),
    });
    await expectError(await send(t.apiKey, { ...LOGIN, to: 'b@example.com' }), 403, 'recipient_suppressed');
    await setRecipient(t.environmentId, t.tenantId, 'b@example.com', {
      cooldown_until: new Date('2026-11-01T00:00:00Z'),
    });
    expect((await send(t.apiKey, { ...LOGIN, to: 'b@example.com' })).statusCode).toBe(200);
  });

  it('keeps recipient state per environment', async () => {
    const t = await seedScope(h);
    await setRecipient(s.environmentId, s.tenantId, 'other-env@example.com', {
      complained_at: new Date('2026-11-01T00:00:00Z'),
    });
    expect((await send(t.apiKey, { ...LOGIN, to: 'other-env@example.com' })).statusCode).toBe(200);
  });

  it('refuses sends past a no-overage limit with 403 monthly_quota_exceeded and counts overage when allowed', async () => {
    const t = await seedScope(h, { monthlyLimit: 2 });
    expect((await send(t.apiKey, LOGIN)).statusCode).toBe(200);
    expect((await send(t.apiKey, LOGIN)).statusCode).toBe(200);
    await expectError(await send(t.apiKey, LOGIN), 403, 'monthly_quota_exceeded');
    expect(await countMessages(t.environmentId)).toBe(2);
    const o = await seedScope(h, { monthlyLimit: 1, overageAllowed: true });
    for (let i = 0; i < 3; i++) expect((await send(o.apiKey, LOGIN)).statusCode).toBe(200);
    const quota = (await h.request({ method: 'GET', url: '/v1/quota', headers: bearer(o.apiKey) })).json()
      .quota;
    expect(quota.monthly).toMatchObject({ used: 3, overageEmails: 2, status: 'overage' });
  });

  it('writes nothing for a send refused by quota: no message, no usage, no idempotency record', async () => {
    const t = await seedScope(h, { monthlyLimit: 1 });
    expect((await send(t.apiKey, LOGIN)).statusCode).toBe(200);
    await expectError(
      await send(t.apiKey, LOGIN, { 'idempotency-key': 'later' }),
      403,
      'monthly_quota_exceeded',
    );
    expect(await countMessages(t.environmentId)).toBe(1);
    const quota = (await h.request({ method: 'GET', url: '/v1/quota', headers: bearer(t.apiKey) })).json()
      .quota;
    expect(quota.environment.usedThisMonth).toBe(1);
    await h.admin('plans.update', { id: t.planId, monthlyLimit: 2 });
    const retry = await send(t.apiKey, LOGIN, { 'idempotency-key': 'later' });
    expect(retry.json()).toMatchObject({ status: 'accepted', idempotent: false });
  });

  it('refuses a plan with a zero limit and no overage', async () => {
    const t = await seedScope(h, { monthlyLimit: 0 });
    await expectError(await send(t.apiKey, LOGIN), 403, 'monthly_quota_exceeded');
  });
});

describe('input the database cannot store, and deep nesting', () => {
  it('refuses NUL and unpaired surrogates in template data with 400 invalid_request and each path', async () => {
    for (const bad of ['x\u0000', '\ud800', 'x\udfff y']) {
      const res = await send(s.apiKey, {
        templateId: 'mention',
        to: 'jane@example.com',
        data: { intro: bad },
      });
      const error = await expectError(res, 400, 'invalid_request');
      expect(error.details).toEqual([{ path: '/data/intro', message: expect.stringContaining('NUL') }]);
    }
    const key = await send(s.apiKey, { ...LOGIN, data: { 'co\u0000de': '1' } });
    await expectError(key, 400, 'invalid_request');
    const emoji = await send(s.apiKey, {
      templateId: 'mention',
      to: 'jane@example.com',
      data: { intro: 'Nice 🚀' },
    });
    expect(emoji.statusCode, emoji.body).toBe(200);
  });

  it(`answers every legitimate send when poisoned sends arrive among them (${backend})`, async () => {
    const t = await seedScope(h);
    const results = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        send(
          t.apiKey,
          i % 7 === 3
            ? { templateId: 'mention', to: `p${i}@example.com`, data: { intro: 'x\u0000' } }
            : { ...LOGIN, to: `ok${i}@example.com` },
        ),
      ),
    );
    const poisoned = results.filter((_, i) => i % 7 === 3);
    const legitimate = results.filter((_, i) => i % 7 !== 3);
    expect(poisoned.map((r) => r.statusCode)).toEqual(Array(10).fill(400));
    expect(legitimate.map((r) => r.statusCode)).toEqual(Array(60).fill(200));
    expect(await countMessages(t.environmentId)).toBe(60);
  });

  it('refuses 5,000 nested arrays or objects in data with 400 invalid_request, with and without an Idempotency-Key', async () => {
    const arrays = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const objects = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    for (const deep of [arrays, objects]) {
      for (const headers of [{}, { 'idempotency-key': `deep-${deep.length}-${Math.random()}` }]) {
        const res = await h.request({
          method: 'POST',
          url: '/v1/send',
          headers: { ...bearer(s.apiKey), 'content-type': 'application/json', ...headers },
          payload: `{"templateId":"mention","to":"jane@example.com","data":{"intro":"x","x":${deep}}}`,
        });
        const error = await expectError(res, 400, 'invalid_request');
        expect(error.details[0].message).toContain('deeper than 32');
      }
    }
  });
});

describe('idempotency', () => {
  it('replays the original response for the same key and request, in any key order, and sends nothing', async () => {
    const t = await seedScope(h);
    const first = await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-1' });
    const again = await send(
      t.apiKey,
      { data: { code: '482913' }, to: 'jane@example.com', templateId: 'login-code' },
      { 'idempotency-key': 'order-1' },
    );
    expect(again.json()).toEqual({ ...first.json(), idempotent: true });
    expect(await countMessages(t.environmentId)).toBe(1);
  });

  it('treats an omitted templateVersion and the version it resolves to, and the address in any case, as the same request', async () => {
    const t = await seedScope(h);
    const first = await send(t.apiKey, LOGIN, { 'idempotency-key': 'same-send' });
    const again = await send(
      t.apiKey,
      { ...LOGIN, to: 'JANE@example.com', templateVersion: 'v1' },
      { 'idempotency-key': 'same-send' },
    );
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ ...first.json(), idempotent: true });
    // welcome's latest is v2: naming v1 is a different request
    await send(
      t.apiKey,
      { templateId: 'welcome', to: 'a@example.com', data: {} },
      { 'idempotency-key': 'w' },
    );
    await expectError(
      await send(
        t.apiKey,
        { templateId: 'welcome', to: 'a@example.com', data: {}, templateVersion: 'v1' },
        { 'idempotency-key': 'w' },
      ),
      409,
      'idempotency_key_reused',
    );
  });

  it('refuses the same key with a different request with 409 idempotency_key_reused', async () => {
    const t = await seedScope(h);
    await send(t.apiKey, LOGIN, { 'idempotency-key': 'k1' });
    await expectError(
      await send(t.apiKey, { ...LOGIN, data: { code: '000000' } }, { 'idempotency-key': 'k1' }),
      409,
      'idempotency_key_reused',
    );
  });

  it('does not record rejected requests, so a corrected retry with the same key succeeds', async () => {
    const t = await seedScope(h);
    await expectError(
      await send(t.apiKey, { ...LOGIN, data: {} }, { 'idempotency-key': 'fix-me' }),
      400,
      'invalid_template_data',
    );
    expect((await send(t.apiKey, LOGIN, { 'idempotency-key': 'fix-me' })).json().idempotent).toBe(false);
  });

  it('scopes keys to the environment', async () => {
    const a = await seedScope(h);
    const b = await seedScope(h);
    const ra = await send(a.apiKey, LOGIN, { 'idempotency-key': 'shared' });
    const rb = await send(b.apiKey, LOGIN, { 'idempotency-key': 'shared' });
    expect(rb.json().idempotent).toBe(false);
    expect(rb.json().messageId).not.toBe(ra.json().messageId);
  });

  it('frees the key after 24 hours', async () => {
    const t = await seedScope(h);
    const first = await send(t.apiKey, LOGIN, { 'idempotency-key': 'daily' });
    h.clock.advance(24 * 3_600_000);
    const later = await send(
      t.apiKey,
      { ...LOGIN, data: { code: '111111' } },
      { 'idempotency-key': 'daily' },
    );
    expect(later.statusCode).toBe(200);
    expect(later.json().messageId).not.toBe(first.json().messageId);
    h.clock.set('2026-11-22T10:15:30.123Z');
  });

  // DESIGN.md §3 order, on both paths: a send that passes every check costs one round trip (the
  // checks that need the database run inside the accept); any refusal is answered from a read,
  // in order.
  it('answers a reused key with 409 before checking the template data (step 3 before step 5)', async () => {
    const t = await seedScope(h);
    await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-3-5' });
    await expectError(
      await send(t.apiKey, { ...LOGIN, data: {} }, { 'idempotency-key': 'order-3-5' }),
      409,
      'idempotency_key_reused',
    );
  });

  it('replays a send after its environment was paused and its recipient complained (step 3 before steps 8 and 9)', async () => {
    const t = await seedScope(h);
    const first = await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-3-9' });
    await setRecipient(t.environmentId, t.tenantId, 'jane@example.com', { complained_at: new Date() });
    const again = await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-3-9' });
    expect(again.json()).toEqual({ ...first.json(), idempotent: true });
    await expectError(await send(t.apiKey, LOGIN), 403, 'recipient_complained');
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'paused' });
    const paused = await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-3-9' });
    expect(paused.json()).toEqual({ ...first.json(), idempotent: true });
    expect(await countMessages(t.environmentId)).toBe(1);
  });

  it('replays a send after the monthly quota is used up (step 3 before step 10)', async () => {
    const t = await seedScope(h, { monthlyLimit: 1 });
    const first = await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-3-10' });
    expect(first.statusCode).toBe(200);
    await expectError(await send(t.apiKey, { ...LOGIN, to: 'b@example.com' }), 403, 'monthly_quota_exceeded');
    const again = await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-3-10' });
    expect(again.json()).toEqual({ ...first.json(), idempotent: true });
  });

  it('answers sending_domain_not_ready before app_paused, and app_paused before the recipient (steps 7, 8, 9)', async () => {
    const t = await seedScope(h);
    await setRecipient(t.environmentId, t.tenantId, 'jane@example.com', { complained_at: new Date() });
    await h.admin('environments.update', { id: t.environmentId, sendingStatus: 'paused' });
    await expectError(await send(t.apiKey, LOGIN), 403, 'app_paused');
    const domain = `order-${t.projectId.slice(-8).toLowerCase()}.example.com`;
    await h.admin('domains.add', { domain, project: t.projectId });
    await expectError(await send(t.apiKey, LOGIN), 403, 'sending_domain_not_ready');
    await expectError(
      await send(t.apiKey, LOGIN, { 'idempotency-key': 'order-7' }),
      403,
      'sending_domain_not_ready',
    );
  });

  it('answers invalid_template_data before from_domain_not_allowed and the recipient, with and without a key', async () => {
    const t = await seedScope(h);
    await setRecipient(t.environmentId, t.tenantId, 'jane@example.com', { complained_at: new Date() });
    const bad = { ...LOGIN, data: {}, from: 'hello@elsewhere.example' };
    await expectError(await send(t.apiKey, bad), 400, 'invalid_template_data');
    await expectError(
      await send(t.apiKey, bad, { 'idempotency-key': 'order-5' }),
      400,
      'invalid_template_data',
    );
    await expectError(
      await send(t.apiKey, { ...LOGIN, from: 'hello@elsewhere.example' }),
      403,
      'from_domain_not_allowed',
    );
  });

  it('gives 50 concurrent duplicates exactly one message and 50 × 200', async () => {
    const t = await seedScope(h);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => send(t.apiKey, LOGIN, { 'idempotency-key': 'burst' })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    expect(new Set(results.map((r) => r.json().messageId)).size).toBe(1);
    expect(results.filter((r) => r.json().idempotent === false)).toHaveLength(1);
    expect(await countMessages(t.environmentId)).toBe(1);
  });
});

describe(`quota under concurrency (${backend})`, () => {
  it('accepts exactly 10 of 50 concurrent sends on a plan of 10', async () => {
    const t = await seedScope(h, { monthlyLimit: 10 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(t.apiKey, { ...LOGIN, to: `u${i}@example.com` })),
    );
    const codes = results.map((r) => (r.statusCode === 200 ? 'ok' : r.json().error.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(10);
    expect(codes.filter((c) => c === 'monthly_quota_exceeded')).toHaveLength(40);
    expect(await countMessages(t.environmentId)).toBe(10);
  });
});

describe(`group commit of accepts (${backend})`, () => {
  const usage = async (t: Scope) => {
    const db = h.runtime.deps.db;
    const tenant = await db
      .selectFrom('tenant_usage')
      .select('sent')
      .where('tenant_id', '=', t.tenantId)
      .execute();
    const env = await db
      .selectFrom('environment_usage')
      .select('sent')
      .where('environment_id', '=', t.environmentId)
      .execute();
    return { tenant: tenant[0]?.sent ?? 0, environment: env[0]?.sent ?? 0 };
  };
  const idempotencyRecords = async (t: Scope) =>
    (
      await h.runtime.deps.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('environment_id', '=', t.environmentId)
        .execute()
    ).length;

  const item = (t: Scope, opts: { key?: string; to?: string } = {}) =>
    acceptItem(t, h.runtime.deps.clock.now(), {
      ...(opts.key && { key: opts.key }),
      ...(opts.to && { message: { toEmail: opts.to } }),
    });

  it('accepts exactly 10 in total when two API replicas send 50 concurrently to a tenant with limit 10', async () => {
    const t = await seedScope(h, { monthlyLimit: 10 });
    const replica = await h.replica();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(t.apiKey, { ...LOGIN, to: `r${i}@example.com` }, {}, i % 2 ? replica : h.app),
      ),
    );
    const codes = results.map((r) => (r.statusCode === 200 ? 'ok' : r.json().error.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(10);
    expect(codes.filter((c) => c === 'monthly_quota_exceeded')).toHaveLength(40);
    expect(await countMessages(t.environmentId)).toBe(10);
    expect(await usage(t)).toEqual({ tenant: 10, environment: 10 });
  });

  it("refuses only the exhausted tenant's items in a batch mixing two tenants, and replays a key repeated in the batch", async () => {
    const full = await seedScope(h, { monthlyLimit: 1 });
    const open = await seedScope(h, { monthlyLimit: 10 });
    expect((await send(full.apiKey, LOGIN)).statusCode).toBe(200);
    const outcomes = await acceptMessages(h.runtime.deps.db, [
      item(full, { key: 'k1' }),
      item(open, { key: 'k1' }),
      item(full, { to: 'b@example.com' }),
      item(open, { key: 'k1' }),
      item(open, { to: 'c@example.com' }),
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual([
      'quota_exceeded',
      'accepted',
      'quota_exceeded',
      'idempotency_taken',
      'accepted',
    ]);
    expect(await usage(full)).toEqual({ tenant: 1, environment: 1 });
    expect(await usage(open)).toEqual({ tenant: 2, environment: 2 });
    expect(await countMessages(full.environmentId)).toBe(1);
    expect(await countMessages(open.environmentId)).toBe(2);
    expect(await idempotencyRecords(full)).toBe(0);
    expect(await idempotencyRecords(open)).toBe(1);
  });

  it('replays a key accepted earlier in the batch when that send used the last of the quota (step 3 before step 10)', async () => {
    const t = await seedScope(h, { monthlyLimit: 1 });
    const first = item(t, { key: 'last-unit' });
    const outcomes = await acceptMessages(h.runtime.deps.db, [first, item(t, { key: 'last-unit' })]);
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'idempotency_taken']);
    expect(outcomes[1]).toMatchObject({ record: { messageId: first.message.id } });
    expect(await usage(t)).toEqual({ tenant: 1, environment: 1 });
  });

  it('answers identical keyed sends from two API replicas with 200 when they race for the last of the quota', async () => {
    const t = await seedScope(h, { monthlyLimit: 1 });
    const replica = await h.replica();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send(t.apiKey, LOGIN, { 'idempotency-key': 'race' }, i % 2 ? replica : h.app),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.json().messageId)).size).toBe(1);
    expect(await countMessages(t.environmentId)).toBe(1);
  });

  it('commits nothing of a batch when one of its items fails', async () => {
    const t = await seedScope(h);
    const broken = item(t, { key: 'lost' });
    broken.message.tenantId = 'ten_missing';
    await expect(acceptMessages(h.runtime.deps.db, [item(t, { key: 'kept?' }), broken])).rejects.toThrow();
    expect(await countMessages(t.environmentId)).toBe(0);
    expect(await usage(t)).toEqual({ tenant: 0, environment: 0 });
    expect(await idempotencyRecords(t)).toBe(0);
  });

  it('accepts the other sends of a batch when the database refuses one of them (the batch is retried item by item)', async () => {
    const t = await seedScope(h);
    const accepts = h.runtime.deps.send.accepts;
    // The first calls start batches of their own; the rest queue and are accepted as one batch,
    // the poisoned item (a NUL the database cannot store, past validation) among them.
    const poisoned = item(t, { to: 'poison@example.com', key: 'poison' });
    poisoned.message.data = { code: 'x\u0000' };
    const calls = [
      accepts.call(item(t, { to: 'lead-0@example.com' })),
      accepts.call(item(t, { to: 'lead-1@example.com' })),
      ...Array.from({ length: 5 }, (_, i) => accepts.call(item(t, { to: `before-${i}@example.com` }))),
      accepts.call(poisoned),
      ...Array.from({ length: 5 }, (_, i) => accepts.call(item(t, { to: `after-${i}@example.com` }))),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value.kind : 'rejected'))).toEqual([
      ...Array(7).fill('accepted'),
      'rejected',
      ...Array(5).fill('accepted'),
    ]);
    expect(await countMessages(t.environmentId)).toBe(12);
    expect(await usage(t)).toEqual({ tenant: 12, environment: 12 });
    expect(await idempotencyRecords(t)).toBe(0);
  });

  it('batches sends that arrive while a batch is running, and answers each with its own outcome', async () => {
    const t = await seedScope(h, { monthlyLimit: 3 });
    const accepts = h.runtime.deps.send.accepts;
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => accepts.call(item(t, { to: `q${i}@example.com` }))),
    );
    expect(outcomes.map((o) => o.kind).sort()).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'quota_exceeded',
      'quota_exceeded',
      'quota_exceeded',
    ]);
    expect(await usage(t)).toEqual({ tenant: 3, environment: 3 });
  });
});

runCommonRouteTests('sendEmail', () => h);
