// MailsvcWrapper against a real wrapper (the standalone server) forwarding to the real core API.
import type { AddressInfo } from 'node:net';
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppCheckVerifier } from '../../wrapper/src/app-check.js';
import { wrapperConfigFrom } from '../../wrapper/src/config.js';
import { createWrapperLogger } from '../../wrapper/src/logger.js';
import { type RunningWrapper, startWrapperServer } from '../../wrapper/src/server.js';
import { MailsvcWrapper, type RetryEvent } from '../src/index.js';
import { failure, messagesTo as messagesOf } from './helpers.js';
import { type HttpFaultProxy, startHttpFaultProxy } from './http-fault-proxy.js';

let h: Harness;
let s: Scope;
let wrapper: RunningWrapper;
let checked: RunningWrapper;
let proxy: HttpFaultProxy;
/** Between a third wrapper and the core: the core going away for a moment. */
let coreProxy: HttpFaultProxy;
let flaky: RunningWrapper;
const tokensSeen: string[] = [];

/** Accepts tokens starting with `good-`, each once (replay protection on security routes). */
const verifier: AppCheckVerifier = async (token, { consume }) => {
  if (!token.startsWith('good-')) throw new Error('invalid token');
  const alreadyConsumed = consume && tokensSeen.includes(token);
  tokensSeen.push(token);
  return { appId: 'test-app', alreadyConsumed };
};

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const coreUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  const settings = { MAILSVC_API_KEY: s.apiKey, MAILSVC_CORE_URL: coreUrl, MAILSVC_WRAPPER_PORT: 0 };
  const log = createWrapperLogger('silent');
  wrapper = await startWrapperServer({ config: wrapperConfigFrom(settings), log });
  checked = await startWrapperServer({
    config: wrapperConfigFrom({ ...settings, MAILSVC_REQUIRE_APP_CHECK: true }),
    log,
    verifyAppCheck: verifier,
  });
  proxy = await startHttpFaultProxy(checked.url);
  coreProxy = await startHttpFaultProxy(coreUrl);
  flaky = await startWrapperServer({
    config: wrapperConfigFrom({ ...settings, MAILSVC_CORE_URL: coreProxy.url }),
    log,
  });
});
afterAll(async () => {
  await flaky.close();
  await coreProxy.close();
  await proxy.close();
  await checked.close();
  await wrapper.close();
  await h.close();
});

const messagesTo = (to: string) => messagesOf(h, to);

describe('MailsvcWrapper against a real wrapper and core', () => {
  it('sends through a route method: the template of the route, one message', async () => {
    const client = new MailsvcWrapper({ baseUrl: wrapper.url });
    const result = await client.auth.loginCode({ to: 'wrap-login@example.com', data: { code: '482913' } });
    expect(result).toMatchObject({ ok: true, status: 'accepted', messageId: expect.stringMatching(/^msg_/) });
    expect(await messagesTo('wrap-login@example.com')).toEqual([
      { id: result.messageId, template_id: 'login-code' },
    ]);
    const receipt = await client.billing.paymentFailed({
      to: 'wrap-billing@example.com',
      data: {
        invoiceDetails: { amount: '€49.00' },
        actionButton: { url: 'https://app.example.com/billing' },
      },
    });
    expect(await messagesTo('wrap-billing@example.com')).toEqual([
      { id: receipt.messageId, template_id: 'payment-failed' },
    ]);
  });

  it('answers the same message for the same idempotencyKey', async () => {
    const client = new MailsvcWrapper({ baseUrl: wrapper.url });
    const input = {
      to: 'wrap-replay@example.com',
      data: { code: '121212' },
      idempotencyKey: 'wrap-replay-1',
    };
    const first = await client.auth.loginCode(input);
    const again = await client.auth.loginCode(input);
    expect(again).toEqual({ ...first, idempotent: true });
    expect(await messagesTo('wrap-replay@example.com')).toHaveLength(1);
  });

  it('types the wrapper’s refusals: invalid_template_data with the field, template_version_not_found', async () => {
    const client = new MailsvcWrapper({ baseUrl: wrapper.url });
    const invalid = await failure(client.auth.loginCode({ to: 'wrap-bad@example.com', data: {} as never }));
    expect(invalid).toMatchObject({ code: 'invalid_template_data', status: 400 });
    expect(invalid.requestId).toMatch(/^req_/);
    expect(invalid.details.map((d) => d.path)).toContain('/data/code');
    const version = await failure(
      client.auth.loginCode({
        to: 'wrap-bad@example.com',
        data: { code: '1' },
        templateVersion: 'v99' as never,
      }),
    );
    expect(version).toMatchObject({ code: 'template_version_not_found', status: 404 });
    expect(await messagesTo('wrap-bad@example.com')).toEqual([]);
  });

  it('sends the App Check token, asks for a fresh one per attempt, and types app_check_required', async () => {
    const without = await failure(
      new MailsvcWrapper({ baseUrl: checked.url }).auth.loginCode({
        to: 'wrap-ac@example.com',
        data: { code: '1' },
      }),
    );
    expect(without).toMatchObject({ code: 'app_check_required', status: 401, attempts: 1 });
    const wrong = await failure(
      new MailsvcWrapper({ baseUrl: checked.url, appCheckToken: 'forged' }).auth.loginCode({
        to: 'wrap-ac@example.com',
        data: { code: '1' },
      }),
    );
    expect(wrong).toMatchObject({ code: 'app_check_invalid', status: 401 });

    // The first attempt is accepted and its answer lost; the retry carries a new token (the first
    // is consumed) and the same idempotencyKey, so the wrapper answers the first message.
    let issued = 0;
    const retries: RetryEvent[] = [];
    const client = new MailsvcWrapper({
      baseUrl: proxy.url,
      appCheckToken: async () => `good-${++issued}`,
      onRetry: (e) => retries.push(e),
    });
    proxy.plan('drop-after-forwarding');
    const result = await client.auth.loginCode({ to: 'wrap-drop@example.com', data: { code: '909090' } });
    expect(retries.map((r) => r.error.code)).toEqual(['network_error']);
    expect(issued).toBe(2);
    const bodies = proxy.seen.map((r) => JSON.parse(r.body) as { idempotencyKey: string });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.idempotencyKey).toBe(bodies[0]!.idempotencyKey);
    expect(result.idempotent).toBe(true);
    expect(await messagesTo('wrap-drop@example.com')).toEqual([
      { id: result.messageId, template_id: 'login-code' },
    ]);
  });

  it('retries the wrapper’s send_failed with Retry-After while the core is away, with one idempotencyKey: one message', async () => {
    const retries: RetryEvent[] = [];
    const client = new MailsvcWrapper({ baseUrl: flaky.url, onRetry: (e) => retries.push(e) });
    coreProxy.seen.length = 0;
    coreProxy.plan('unavailable');
    const result = await client.auth.loginCode({
      to: 'wrap-core-away@example.com',
      data: { code: '707070' },
    });
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toMatchObject({ code: 'send_failed', status: 500, retryAfter: 1 });
    expect(coreProxy.seen.map((r) => r.fault)).toEqual(['unavailable', 'pass']);
    expect(coreProxy.seen[1]!.idempotencyKey).toBe(coreProxy.seen[0]!.idempotencyKey);
    expect(result.idempotent).toBe(false);
    expect(await messagesTo('wrap-core-away@example.com')).toEqual([
      { id: result.messageId, template_id: 'login-code' },
    ]);
  });
});
