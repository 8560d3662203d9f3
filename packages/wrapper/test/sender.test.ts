// Who the email claims to be from. By default callers cannot choose: an anonymous page that sets
// `from`, `fromName` or `replyTo` would make the wrapper a branded relay. With
// MAILSVC_ALLOW_SENDER_OVERRIDE=true they can, and a display name that hides or reorders text is
// refused (display-name spoofing).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, type StubCore, startStubCore, testRouter } from './helpers.js';

let stub: StubCore;
beforeAll(async () => {
  stub = await startStubCore();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.calls.length = 0;
});

const LOGIN = { to: 'jane@example.com', data: { code: '482913' } };
const OVERRIDE_MESSAGE = 'may not be set by callers unless MAILSVC_ALLOW_SENDER_OVERRIDE=true';

describe('by default (MAILSVC_ALLOW_SENDER_OVERRIDE unset)', () => {
  const { router } = testRouter({ MAILSVC_CORE_URL: 'http://127.0.0.1:1' });
  afterAll(() => router.close());

  it('refuses from, fromName and replyTo with 400 invalid_request, one detail each, and sends nothing', async () => {
    const t = testRouter({ MAILSVC_CORE_URL: stub.url });
    const res = await call(t.router, '/auth/login-code', {
      body: { ...LOGIN, from: 'security@bank.example', fromName: 'Your Bank', replyTo: 'x@evil.example' },
    });
    t.router.close();
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'invalid_request',
      details: [
        { path: '/from', message: OVERRIDE_MESSAGE },
        { path: '/fromName', message: OVERRIDE_MESSAGE },
        { path: '/replyTo', message: OVERRIDE_MESSAGE },
      ],
    });
    expect(stub.calls).toHaveLength(0);
  });

  it.each([
    ['from', 'me@example.com'],
    ['fromName', 'Acme'],
    ['replyTo', 'help@example.com'],
  ])('refuses %s alone', async (field, value) => {
    const res = await call(router, '/auth/login-code', { body: { ...LOGIN, [field]: value } });
    expect(res.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: `/${field}`, message: OVERRIDE_MESSAGE }],
    });
  });
});

describe('with MAILSVC_ALLOW_SENDER_OVERRIDE=true', () => {
  let router: ReturnType<typeof testRouter>['router'];
  beforeAll(() => {
    ({ router } = testRouter({ MAILSVC_CORE_URL: stub.url, MAILSVC_ALLOW_SENDER_OVERRIDE: true }));
  });
  afterAll(() => router.close());

  it('forwards from, fromName and replyTo', async () => {
    const res = await call(router, '/auth/login-code', {
      body: { ...LOGIN, from: 'me@example.com', fromName: 'Acme Support', replyTo: 'help@example.com' },
    });
    expect(res.status, res.body).toBe(200);
    expect(stub.calls[0]!.body).toMatchObject({
      from: 'me@example.com',
      fromName: 'Acme Support',
      replyTo: 'help@example.com',
    });
  });

  it('still checks from and replyTo as addresses', async () => {
    const res = await call(router, '/auth/login-code', {
      body: { ...LOGIN, from: 'Acme <me@example.com>', replyTo: 'a@b@c' },
    });
    expect(res.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/from' }, { path: '/replyTo' }],
    });
    expect(stub.calls).toHaveLength(0);
  });

  it.each([
    ['a right-to-left override (U+202E)', 'PayPal\u202Emoc.evil'],
    ['a bidi isolate (U+2066)', 'Support \u2066team\u2069'],
    ['a zero-width space (U+200B)', 'Pay\u200BPal'],
    ['a zero-width joiner (U+200D)', 'Pay\u200DPal'],
    ['a byte order mark (U+FEFF)', '\uFEFFBank'],
    ['a C1 control (U+0085, next line)', 'Bank\u0085Security'],
    ['a C1 control (U+009B, CSI)', 'Bank\u009B31m'],
    ['a line break', 'Bank\r\nBcc: x@evil.example'],
    ['121 characters', 'a'.repeat(121)],
  ])(
    'refuses a fromName with %s with 400 invalid_from_name at /fromName and sends nothing',
    async (_name, fromName) => {
      const res = await call(router, '/auth/login-code', { body: { ...LOGIN, fromName } });
      expect(res.status).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_from_name',
        details: [{ path: '/fromName', message: expect.stringMatching(/^must /) }],
      });
      expect(res.json().error.details).toHaveLength(1);
      expect(stub.calls).toHaveLength(0);
    },
  );

  it('accepts a name with accents, CJK and an emoji', async () => {
    const res = await call(router, '/auth/login-code', { body: { ...LOGIN, fromName: 'Zoë · 東京 📮' } });
    expect(res.status, res.body).toBe(200);
  });
});
