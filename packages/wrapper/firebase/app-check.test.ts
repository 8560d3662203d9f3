// App Check with the real firebase-admin verifier, offline: a local RSA key, its JWKS served
// through nock in place of https://firebaseappcheck.googleapis.com/v1/jwks, RS256 tokens signed here.
import { createSign, generateKeyPairSync } from 'node:crypto';
import { getFixture, getTemplate } from '@mailsvc/templates';
import { type App, getApps, initializeApp } from 'firebase-admin/app';
import { getAppCheck } from 'firebase-admin/app-check';
import nock from 'nock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AppCheckVerifier, type FirebaseAdmin, firebaseAppCheckVerifier } from '../src/app-check.js';
import { call, type StubCore, startStubCore, testRouter } from '../test/helpers.js';

// firebase-admin from the Firebase kit (this folder's node_modules), given to the verifier.
const admin = { getApps, initializeApp, getAppCheck } as unknown as FirebaseAdmin;

const PROJECT_ID = 'demo-mailsvc';
const PROJECT_NUMBER = '123456789012';
const APP_ID = '1:123456789012:web:abcdef';
const KID = 'test-key-1';
const APPCHECK = 'https://firebaseappcheck.googleapis.com';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function sign(claims: Record<string, unknown> = {}, opts: { kid?: string; key?: typeof privateKey } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', kid: opts.kid ?? KID };
  const payload = {
    iss: `${APPCHECK}/${PROJECT_NUMBER}`,
    aud: [`projects/${PROJECT_NUMBER}`, `projects/${PROJECT_ID}`],
    sub: APP_ID,
    iat: now - 10,
    exp: now + 3600,
    ...claims,
  };
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = createSign('RSA-SHA256')
    .update(input)
    .sign(opts.key ?? privateKey)
    .toString('base64url');
  return `${input}.${signature}`;
}

let stub: StubCore;
let verifier: AppCheckVerifier;
let consumeApp: App;

beforeAll(async () => {
  stub = await startStubCore();
  const jwk = publicKey.export({ format: 'jwk' });
  nock(APPCHECK)
    .persist()
    .get('/v1/jwks')
    .reply(200, { keys: [{ ...jwk, kid: KID, alg: 'RS256', use: 'sig' }] });
  verifier = firebaseAppCheckVerifier({ projectId: PROJECT_ID, admin });
  consumeApp = initializeApp(
    {
      projectId: PROJECT_ID,
      credential: { getAccessToken: async () => ({ access_token: 'test-token', expires_in: 3600 }) },
    },
    'consume-test',
  );
});
afterAll(async () => {
  nock.cleanAll();
  nock.restore();
  await stub.close();
});
beforeEach(() => {
  stub.calls.length = 0;
});

const LOGIN = { to: 'jane@example.com', data: { code: '482913' } };

/** `unset`: MAILSVC_APP_CHECK_CONSUME not given, so its default applies. */
type ConsumeSetting = boolean | 'security' | 'unset';

function appCheckRouter(v: AppCheckVerifier, consume: ConsumeSetting = false) {
  return testRouter(
    {
      MAILSVC_CORE_URL: stub.url,
      MAILSVC_REQUIRE_APP_CHECK: true,
      MAILSVC_APP_CHECK_CONSUME: consume === 'unset' ? undefined : consume,
    },
    { verifyAppCheck: v },
  ).router;
}

async function send(
  token: string | undefined,
  v = verifier,
  consume: ConsumeSetting = false,
  route: { path: string; body: unknown } = { path: '/auth/login-code', body: LOGIN },
) {
  const router = appCheckRouter(v, consume);
  const res = await call(router, route.path, {
    body: route.body,
    headers: token === undefined ? {} : { 'X-Firebase-AppCheck': token },
  });
  await router.close();
  return res;
}

const RECEIPT = {
  path: '/billing/payment-receipt',
  body: { to: 'jane@example.com', data: getFixture(getTemplate('payment-receipt', 'v1').version) },
};

describe('App Check required', () => {
  it('sends with a valid token', async () => {
    const res = await send(sign());
    expect(res.status, res.body).toBe(200);
    expect(stub.calls).toHaveLength(1);
  });

  it('refuses a missing token with 401 app_check_required and sends nothing', async () => {
    const res = await send(undefined);
    expect([res.status, res.json().error.code]).toEqual([401, 'app_check_required']);
    expect(stub.calls).toHaveLength(0);
  });

  it.each([
    [
      'expired',
      () => sign({ iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
    ],
    ['for another project', () => sign({ aud: ['projects/999', 'projects/someone-else'] })],
    ['from another issuer', () => sign({ iss: 'https://evil.example/123' })],
    ['without a subject', () => sign({ sub: '' })],
    [
      'tampered (payload changed after signing)',
      () => {
        const [h, , s] = sign().split('.');
        return `${h}.${b64({ iss: `${APPCHECK}/${PROJECT_NUMBER}`, aud: [`projects/${PROJECT_ID}`], sub: 'other-app', exp: 9999999999 })}.${s}`;
      },
    ],
    ['signed by another key', () => sign({}, { key: other.privateKey })],
    ['with an unknown kid', () => sign({}, { kid: 'unknown' })],
    ['not a JWT', () => 'not-a-token'],
  ])('refuses a token %s with 401 app_check_invalid and sends nothing', async (_name, token) => {
    const res = await send(token());
    expect([res.status, res.json().error.code]).toEqual([401, 'app_check_invalid']);
    expect(stub.calls).toHaveLength(0);
  });

  it('is not asked for when MAILSVC_REQUIRE_APP_CHECK is off', async () => {
    const { router } = testRouter({ MAILSVC_CORE_URL: stub.url });
    const res = await call(router, '/auth/login-code', { body: LOGIN });
    await router.close();
    expect(res.status).toBe(200);
  });
});

describe('replay protection (MAILSVC_APP_CHECK_CONSUME=true)', () => {
  // consume: true makes firebase-admin call Google's verifyAppCheckToken; nock answers it here,
  // with a test credential on the app, so the real verifier runs offline.
  const consumeVerifier = () => firebaseAppCheckVerifier({ app: consumeApp, admin });

  it('sends a token the first time and refuses its replay with 401 app_check_invalid', async () => {
    const token = sign();
    let seen = 0;
    const scope = nock(APPCHECK)
      .post(`/v1beta/projects/${PROJECT_ID}:verifyAppCheckToken`, (b) => b.app_check_token === token)
      .times(2)
      .reply(200, () => ({ alreadyConsumed: seen++ > 0 }));
    const v = consumeVerifier();
    const first = await send(token, v, true);
    expect(first.status, first.body).toBe(200);
    const replay = await send(token, v, true);
    expect([replay.status, replay.json().error.code]).toEqual([401, 'app_check_invalid']);
    expect(stub.calls).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses when the replay check itself cannot be made (fails closed)', async () => {
    nock(APPCHECK).post(`/v1beta/projects/${PROJECT_ID}:verifyAppCheckToken`).reply(503, {});
    const res = await send(sign(), consumeVerifier(), true);
    expect([res.status, res.json().error.code]).toEqual([401, 'app_check_invalid']);
    expect(stub.calls).toHaveLength(0);
  });
});

describe('replay protection for security templates by default (MAILSVC_APP_CHECK_CONSUME=security)', () => {
  const consumeVerifier = () => firebaseAppCheckVerifier({ app: consumeApp, admin });

  it('refuses a replayed token on a security route (/auth/login-code) with 401 app_check_invalid', async () => {
    const token = sign();
    let seen = 0;
    const scope = nock(APPCHECK)
      .post(`/v1beta/projects/${PROJECT_ID}:verifyAppCheckToken`, (b) => b.app_check_token === token)
      .times(2)
      .reply(200, () => ({ alreadyConsumed: seen++ > 0 }));
    const v = consumeVerifier();
    const first = await send(token, v, 'unset');
    expect(first.status, first.body).toBe(200);
    const replay = await send(token, v, 'unset');
    expect([replay.status, replay.json().error.code]).toEqual([401, 'app_check_invalid']);
    expect(stub.calls).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it('verifies without consuming on a transactional route: the same token sends twice', async () => {
    const token = sign();
    const v = consumeVerifier();
    expect((await send(token, v, 'unset', RECEIPT)).status).toBe(200);
    expect((await send(token, v, 'unset', RECEIPT)).status).toBe(200);
    expect(stub.calls).toHaveLength(2);
  });

  it.each([
    ['unset' as const, true, false],
    ['security' as const, true, false],
    [true, true, true],
    [false, false, false],
  ])(
    'with MAILSVC_APP_CHECK_CONSUME=%s consumes on a security route: %s, on a transactional route: %s',
    async (setting, onSecurity, onTransactional) => {
      const asked: boolean[] = [];
      const recording: AppCheckVerifier = async (token, opts) => {
        asked.push(opts.consume);
        return verifier(token, { consume: false });
      };
      expect((await send(sign(), recording, setting)).status).toBe(200);
      expect((await send(sign(), recording, setting, RECEIPT)).status).toBe(200);
      expect(asked).toEqual([onSecurity, onTransactional]);
    },
  );
});
