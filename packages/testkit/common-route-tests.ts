// The security cases every /v1 route answers alike (STYLE.md §Tests, unkey's runCommonRouteTests),
// generated from the operation's entry in the contract: its method and path, how it is
// authenticated, its example body and the error codes it declares. A case runs when the operation
// declares its code: the API-key refusals (no key, a wrong secret, a revoked key; a trial ended, a
// project or environment inactive; a tenant, project or environment deleted), an unsigned relay
// event, 405 with Allow before authentication, and for a JSON body 413, 415 and broken JSON.
import { type Operation, type OperationId, operations } from '@mailsvc/contract/api';
import type { CoreErrorCode } from '@mailsvc/contract/errors';
import { BODY_LIMIT } from '@mailsvc/contract/http';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness, type Scope, seedScope } from './harness.js';

/** One scope per refusal, seeded once per harness and shared by every operation's cases. */
interface SecurityScopes {
  valid: Scope;
  revoked: Scope;
  trialExpired: Scope;
  projectInactive: Scope;
  environmentInactive: Scope;
  tenantDeleted: Scope;
  projectDeleted: Scope;
  environmentDeleted: Scope;
}

const seeded = new WeakMap<Harness, Promise<SecurityScopes>>();

async function seedSecurityScopes(h: Harness): Promise<SecurityScopes> {
  const valid = await seedScope(h);
  const revoked = await seedScope(h);
  await h.admin('keys.revoke', { id: revoked.keyId });
  const trialExpired = await seedScope(h, { trialEndsAt: '2026-01-01T00:00:00Z' });
  const projectInactive = await seedScope(h);
  await h.admin('projects.update', { id: projectInactive.projectId, status: 'inactive' });
  const environmentInactive = await seedScope(h);
  await h.admin('environments.update', { id: environmentInactive.environmentId, status: 'inactive' });
  const tenantDeleted = await seedScope(h);
  await h.admin('tenants.delete', { id: tenantDeleted.tenantId });
  const projectDeleted = await seedScope(h);
  await h.admin('projects.delete', { id: projectDeleted.projectId });
  const environmentDeleted = await seedScope(h);
  await h.admin('environments.delete', { id: environmentDeleted.environmentId });
  return {
    valid,
    revoked,
    trialExpired,
    projectInactive,
    environmentInactive,
    tenantDeleted,
    projectDeleted,
    environmentDeleted,
  };
}

function securityScopes(h: Harness): Promise<SecurityScopes> {
  let scopes = seeded.get(h);
  if (!scopes) {
    scopes = seedSecurityScopes(h);
    seeded.set(h, scopes);
  }
  return scopes;
}

type Answer = Awaited<ReturnType<Harness['request']>>;

/** The status and code, in the error envelope, with X-Request-Id equal to its requestId. */
function expectRefusal(res: Answer, status: number, code: string) {
  expect([res.statusCode, res.json().error?.code], res.body).toEqual([status, code]);
  const body = res.json();
  expect(body).toEqual({
    ok: false,
    error: expect.objectContaining({
      code,
      message: expect.any(String),
      requestId: expect.stringMatching(/^req_/),
    }),
  });
  expect(res.headers['x-request-id']).toBe(body.error.requestId);
}

/** The operation's own request: its method and path, its example body as JSON, the key if given. */
function request(
  op: Operation,
  apiKey: string | undefined,
  over: Partial<InjectOptions> = {},
): InjectOptions {
  const hasBody = op.method === 'POST';
  return {
    method: op.method,
    url: op.path,
    headers: {
      ...(apiKey && bearer(apiKey)),
      ...(hasBody && { 'content-type': 'application/json' }),
      ...over.headers,
    },
    ...(hasBody && { payload: JSON.stringify(op.example?.body ?? {}) }),
    ...(over.payload !== undefined && { payload: over.payload }),
  };
}

/**
 * Registers the common security cases of an operation as a describe block. They run on the
 * file's harness when given (the scopes they need are seeded once per harness, however many
 * operations share it), else on a harness of their own.
 */
export function runCommonRouteTests(operationId: OperationId, harness?: () => Harness): void {
  const op: Operation = operations[operationId];
  const declares = (code: CoreErrorCode) => (op.errors ?? []).includes(code);
  const auth = op.auth ?? 'apiKey';
  let own: Harness | undefined;
  const h = () => harness?.() ?? own!;
  const ask = (apiKey: string | undefined, over?: Partial<InjectOptions>) =>
    h().request(request(op, apiKey, over));
  const scopes = () => securityScopes(h());

  describe(`${op.method} ${op.path} (${operationId}): the security cases common to every route`, () => {
    if (!harness) {
      beforeAll(async () => {
        own = await createHarness();
      });
      afterAll(() => own?.close());
    }

    if (auth === 'apiKey' && declares('missing_api_key')) {
      it('refuses a request without a key with 401 missing_api_key, before reading the body', async () => {
        expectRefusal(await ask(undefined), 401, 'missing_api_key');
        if (op.method === 'POST')
          expectRefusal(await ask(undefined, { payload: 'not json' }), 401, 'missing_api_key');
      });
    }
    if (auth === 'apiKey' && declares('invalid_api_key')) {
      it('refuses a key with a wrong secret with 401 invalid_api_key', async () => {
        const { valid } = await scopes();
        expectRefusal(await ask(`msk_${valid.keyId.slice(4)}_wrong`), 401, 'invalid_api_key');
      });
    }
    const keyRefusals: [string, keyof SecurityScopes, number, CoreErrorCode][] = [
      ['a revoked key', 'revoked', 403, 'api_key_revoked'],
      ['a key whose tenant’s trial has ended', 'trialExpired', 402, 'trial_expired'],
      ['a key of an inactive project', 'projectInactive', 403, 'project_inactive'],
      ['a key of an inactive environment', 'environmentInactive', 403, 'environment_inactive'],
      ['a key whose tenant was deleted', 'tenantDeleted', 403, 'tenant_not_found'],
      ['a key whose project was deleted', 'projectDeleted', 404, 'project_not_found'],
      ['a key whose environment was deleted', 'environmentDeleted', 404, 'environment_not_found'],
    ];
    for (const [what, scope, status, code] of keyRefusals) {
      if (auth !== 'apiKey' || !declares(code)) continue;
      it(`refuses ${what} with ${status} ${code}`, async () => {
        expectRefusal(await ask((await scopes())[scope].apiKey), status, code);
      });
    }
    if (auth === 'webhookSignature' && declares('invalid_signature')) {
      it('refuses an unsigned event with 401 invalid_signature', async () => {
        expectRefusal(await ask(undefined), 401, 'invalid_signature');
      });
    }

    const other = op.method === 'GET' ? 'POST' : 'GET';
    const allow = op.method === 'GET' ? 'GET, HEAD' : 'POST';
    it(`answers ${other} with 405 method_not_allowed and Allow: ${allow}, before authentication`, async () => {
      const keys = auth === 'apiKey' ? [undefined, (await scopes()).valid.apiKey] : [undefined];
      for (const apiKey of keys) {
        const res = await h().request({
          method: other,
          url: op.path,
          headers: {
            ...(apiKey && bearer(apiKey)),
            ...(other === 'POST' && { 'content-type': 'text/plain' }),
          },
          ...(other === 'POST' && { payload: 'x' }),
        });
        expectRefusal(res, 405, 'method_not_allowed');
        expect(res.headers.allow).toBe(allow);
      }
    });

    if (op.method !== 'POST') return;
    const key = async () => (auth === 'apiKey' ? (await scopes()).valid.apiKey : undefined);
    if (declares('payload_too_large')) {
      it(`refuses a body over ${BODY_LIMIT / 1024} KiB with 413 payload_too_large`, async () => {
        const huge = JSON.stringify({ ...(op.example?.body as object), padding: 'x'.repeat(BODY_LIMIT) });
        expectRefusal(await ask(await key(), { payload: huge }), 413, 'payload_too_large');
      });
    }
    if (declares('unsupported_media_type')) {
      // An operation that takes other media types than JSON (SNS posts text/plain) refuses the rest.
      const type = op.contentTypes ? 'application/xml' : 'text/plain';
      it(`refuses a body of type ${type} with 415 unsupported_media_type`, async () => {
        const res = await ask(await key(), { headers: { 'content-type': type }, payload: '{}' });
        expectRefusal(res, 415, 'unsupported_media_type');
      });
    }
    if (declares('invalid_request')) {
      it('refuses JSON cut short with 400 invalid_request', async () => {
        expectRefusal(await ask(await key(), { payload: '{"email":' }), 400, 'invalid_request');
      });
    }
  });
}
