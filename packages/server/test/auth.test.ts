import type net from 'node:net';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { rawUntilClose } from '@mailsvc/testkit/raw-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const quota = (headers: Record<string, string>, url = '/v1/quota') =>
  h.request({ method: 'GET', url, headers });

function expectError(res: Awaited<ReturnType<typeof quota>>, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body.ok).toBe(false);
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error.requestId).toMatch(/^req_/);
  expect(res.headers['x-request-id']).toBe(body.error.requestId);
}

describe('authentication', () => {
  it('accepts a valid key', async () => {
    const res = await quota(bearer(s.apiKey));
    expect(res.statusCode).toBe(200);
  });

  it('refuses a request without Authorization with 401 missing_api_key', async () => {
    expectError(await quota({}), 401, 'missing_api_key');
  });

  it('refuses a non-Bearer scheme with 401 missing_api_key', async () => {
    expectError(
      await quota({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
      401,
      'missing_api_key',
    );
  });

  it('refuses an empty Bearer token with 401 missing_api_key', async () => {
    expectError(await quota({ authorization: 'Bearer ' }), 401, 'missing_api_key');
    expectError(await quota({ authorization: 'Bearer' }), 401, 'missing_api_key');
  });

  it('never reads a key from the query string', async () => {
    expectError(await quota({}, `/v1/quota?api_key=${s.apiKey}`), 401, 'missing_api_key');
  });

  it('refuses a 10 KB token with 401 invalid_api_key', async () => {
    expectError(await quota({ authorization: `Bearer ${'a'.repeat(10_240)}` }), 401, 'invalid_api_key');
  });

  it('refuses malformed keys with 401 invalid_api_key', async () => {
    for (const token of [
      'nope',
      'msk_',
      `${s.apiKey}x`,
      // the last character dropped (the x appended below must not restore it)
      s.apiKey.slice(0, -1).concat(s.apiKey.endsWith('x') ? 'y' : ''),
      s.apiKey.replace('msk_', 'sk_'),
      `${s.apiKey}\t`,
    ]) {
      expectError(await quota({ authorization: `Bearer ${token}x` }), 401, 'invalid_api_key');
    }
  });

  it('refuses an unknown key id with 401 invalid_api_key', async () => {
    const other = `msk_01JAAAAAAAAAAAAAAAAAAAAAAA_${s.apiKey.slice(-43)}`;
    expectError(await quota(bearer(other)), 401, 'invalid_api_key');
  });

  it('refuses a known key id with the wrong secret with 401 invalid_api_key', async () => {
    const last = s.apiKey.at(-1) === 'a' ? 'b' : 'a';
    expectError(await quota(bearer(s.apiKey.slice(0, -1) + last)), 401, 'invalid_api_key');
  });

  it('refuses a key with control characters with a JSON 400, not a crash', async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as net.AddressInfo;
    const res = await rawUntilClose(port, [
      `GET /v1/quota HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer msk_\u0001\u0000abc\r\n\r\n`,
    ]);
    expect(res.text).toMatch(/^HTTP\/1\.1 400/);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('invalid_request');
  });

  it('never logs the key', async () => {
    await quota(bearer(s.apiKey));
    const secret = s.apiKey.slice(-43);
    expect(h.logs.join('')).not.toContain(secret);
  });
});

describe('key and scope lifecycle', () => {
  it('refuses a revoked key with 403 api_key_revoked', async () => {
    const t = await seedScope(h);
    await h.admin('keys.revoke', { id: t.keyId });
    expectError(await quota(bearer(t.apiKey)), 403, 'api_key_revoked');
  });

  it('checks the secret before reporting revocation', async () => {
    const t = await seedScope(h);
    await h.admin('keys.revoke', { id: t.keyId });
    const last = t.apiKey.at(-1) === 'a' ? 'b' : 'a';
    expectError(await quota(bearer(t.apiKey.slice(0, -1) + last)), 401, 'invalid_api_key');
  });

  it('refuses a key whose tenant was deleted with 403 tenant_not_found', async () => {
    const t = await seedScope(h);
    await h.admin('tenants.delete', { id: t.tenantId });
    expectError(await quota(bearer(t.apiKey)), 403, 'tenant_not_found');
  });

  it('refuses a key whose project was deleted with 404 project_not_found', async () => {
    const t = await seedScope(h);
    await h.admin('projects.delete', { id: t.projectId });
    expectError(await quota(bearer(t.apiKey)), 404, 'project_not_found');
  });

  it('refuses a key whose environment was deleted with 404 environment_not_found', async () => {
    const t = await seedScope(h);
    await h.admin('environments.delete', { id: t.environmentId });
    expectError(await quota(bearer(t.apiKey)), 404, 'environment_not_found');
  });

  it('reports a deleted tenant before a deleted project and environment', async () => {
    const t = await seedScope(h);
    await h.admin('environments.delete', { id: t.environmentId });
    await h.admin('projects.delete', { id: t.projectId });
    await h.admin('tenants.delete', { id: t.tenantId });
    expectError(await quota(bearer(t.apiKey)), 403, 'tenant_not_found');
  });

  it('makes a revocation effective on another replica within the cache TTL (≤ 5 s)', async () => {
    const t = await seedScope(h);
    const replica = await h.replica();
    const ask = () => replica.inject({ method: 'GET', url: '/v1/quota', headers: bearer(t.apiKey) });
    expect((await ask()).statusCode).toBe(200); // now cached on the replica
    await h.admin('keys.revoke', { id: t.keyId });
    expect((await quota(bearer(t.apiKey))).statusCode).toBe(403); // the revoking process: at once
    h.clock.advance(h.runtime.config.MAILSVC_AUTH_CACHE_TTL_MS);
    expect(h.runtime.config.MAILSVC_AUTH_CACHE_TTL_MS).toBeLessThanOrEqual(5000);
    const res = await ask();
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('api_key_revoked');
  });

  it('keeps tenants apart: a key only ever sees its own environment', async () => {
    const a = await seedScope(h);
    const b = await seedScope(h);
    const qa = (await quota(bearer(a.apiKey))).json().quota;
    const qb = (await quota(bearer(b.apiKey))).json().quota;
    expect(qa.tenantId).toBe(a.tenantId);
    expect(qb.tenantId).toBe(b.tenantId);
    expect(qa.environmentId).not.toBe(qb.environmentId);
  });
});
