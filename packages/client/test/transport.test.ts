// The client's request rules where no server is needed to show them: a fetch double answers.
import { describe, expect, it } from 'vitest';
import { Mailsvc, MailsvcWrapper, type RetryEvent, type SendEmailInput } from '../src/index.js';
import { parseRetryAfter } from '../src/transport.js';
import { failure } from './helpers.js';

const BASE = 'http://127.0.0.1:9';
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? '' : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
const sent = { ok: true, status: 'accepted', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', idempotent: false };
const body: SendEmailInput = { templateId: 'login-code', to: 'jane@example.com', data: { code: '1' } };

/** A fetch double answering from a list, recording each request. */
function fakeFetch(...answers: (Response | Error)[]) {
  const calls: { url: string; init: RequestInit; self: unknown }[] = [];
  const fetch = function (this: unknown, url: string, init: RequestInit) {
    calls.push({ url, init, self: this });
    const next = answers.shift();
    if (!next) throw new Error('no answer left');
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { fetch, calls };
}

describe('Retry-After', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it('reads delta-seconds and an IMF-fixdate, and nothing else', () => {
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    for (const junk of ['1.5', '5, 5', '-1', '', 'soon', '2026-11-23T10:00:05Z', '99999999999'])
      expect(parseRetryAfter(junk, now), junk).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('falls back to backoff (not an immediate retry) when Retry-After is malformed', async () => {
    const { fetch } = fakeFetch(
      json(
        503,
        { ok: false, error: { code: 'service_unavailable', message: 'x' } },
        { 'retry-after': '1.5' },
      ),
      json(200, sent),
    );
    const retries: RetryEvent[] = [];
    await new Mailsvc({
      apiKey: 'msk_a_b',
      baseUrl: BASE,
      fetch,
      onRetry: (e) => retries.push(e),
    }).emails.send(body);
    expect(retries[0]!.error.retryAfter).toBeUndefined();
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(250);
  });
});

describe('requests', () => {
  it('calls a custom fetch as a plain function (browsers refuse fetch called on another object)', async () => {
    const { fetch, calls } = fakeFetch(json(200, sent));
    await new Mailsvc({ apiKey: 'msk_a_b', baseUrl: `${BASE}/`, fetch }).emails.send(body);
    expect(calls[0]!.self).toBeUndefined();
    expect(calls[0]!.url).toBe(`${BASE}/v1/send`);
    const headers = calls[0]!.init.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer msk_a_b');
    expect(headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['content-type']).toBe('application/json');
  });

  it('reads no body and sends no Idempotency-Key for a GET', async () => {
    const { fetch, calls } = fakeFetch(json(200, { ok: true, quota: {} }));
    await new Mailsvc({ apiKey: 'msk_a_b', baseUrl: BASE, fetch }).quota.get();
    expect(calls[0]!.init.method).toBe('GET');
    expect(calls[0]!.init.body).toBeUndefined();
    expect(calls[0]!.init.headers).not.toHaveProperty('idempotency-key');
  });

  it('answers invalid_response for a 2xx without ok: true and for an error answer that is not the envelope', async () => {
    for (const [status, answer] of [
      [200, { ok: false }],
      [200, null],
      [400, null],
      [400, { ok: false, error: null }],
      [400, { ok: false, error: { code: 7 } }],
    ] as const) {
      const { fetch } = fakeFetch(json(status, answer));
      const err = await failure(new Mailsvc({ apiKey: 'msk_a_b', baseUrl: BASE, fetch }).emails.send(body));
      expect(err, JSON.stringify(answer)).toMatchObject({ code: 'invalid_response', status, attempts: 1 });
    }
  });

  it('reports the Idempotency-Key of a send on its error and its retry events, the same on every attempt', async () => {
    const { fetch, calls } = fakeFetch(new TypeError('fetch failed'), new TypeError('fetch failed'));
    const retries: RetryEvent[] = [];
    const err = await failure(
      new Mailsvc({
        apiKey: 'msk_a_b',
        baseUrl: BASE,
        fetch,
        maxRetries: 1,
        onRetry: (e) => retries.push(e),
      }).emails.send(body),
    );
    const keys = calls.map((c) => (c.init.headers as Record<string, string>)['idempotency-key']);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
    expect(err).toMatchObject({ code: 'network_error', attempts: 2, idempotencyKey: keys[0] });
    expect(retries[0]!.idempotencyKey).toBe(keys[0]);
  });

  it('refuses option values that would retry forever or time out at once', () => {
    for (const options of [
      { maxRetries: Number.NaN },
      { maxRetries: -1 },
      { timeoutMs: Number.NaN },
      { timeoutMs: 2 ** 31 },
      { maxRetryAfterSeconds: -5 },
    ])
      expect(
        () => new Mailsvc({ apiKey: 'msk_a_b', baseUrl: BASE, ...options }),
        JSON.stringify(options),
      ).toThrow(TypeError);
    expect(() => new Mailsvc({ apiKey: 'msk_a_b', baseUrl: BASE, timeoutMs: Infinity })).not.toThrow();
  });

  it('sends with timeoutMs: Infinity (no timer, not a 1 ms one)', async () => {
    const slow = () => new Promise<Response>((r) => setTimeout(() => r(json(200, sent)), 30));
    const result = await new Mailsvc({
      apiKey: 'msk_a_b',
      baseUrl: BASE,
      fetch: slow,
      timeoutMs: Infinity,
    }).emails.send(body);
    expect(result.messageId).toBe(sent.messageId);
  });
});

describe('cancelling', () => {
  it('stops during a backoff wait: rejects with the caller’s reason and makes no further attempt', async () => {
    const { fetch, calls } = fakeFetch(
      json(503, { ok: false, error: { code: 'service_unavailable', message: 'x' } }, { 'retry-after': '30' }),
      json(200, sent),
    );
    const controller = new AbortController();
    const client = new Mailsvc({
      apiKey: 'msk_a_b',
      baseUrl: BASE,
      fetch,
      onRetry: () => setTimeout(() => controller.abort(new Error('cancelled while waiting')), 10),
    });
    await expect(client.emails.send(body, { signal: controller.signal })).rejects.toThrow(
      'cancelled while waiting',
    );
    expect(calls).toHaveLength(1);
  });

  it('stops while the App Check token is fetched: nothing is sent', async () => {
    const { fetch, calls } = fakeFetch(json(200, sent));
    const controller = new AbortController();
    const wrapper = new MailsvcWrapper({
      baseUrl: BASE,
      fetch,
      appCheckToken: async () => {
        controller.abort(new Error('cancelled while fetching the token'));
        return 'token';
      },
    });
    await expect(
      wrapper.auth.loginCode({ to: 'jane@example.com', data: { code: '1' } }, { signal: controller.signal }),
    ).rejects.toThrow('cancelled while fetching the token');
    expect(calls).toHaveLength(0);
  });
});

describe('the wrapper’s send_failed', () => {
  const failed = (headers: Record<string, string> = {}) =>
    json(
      500,
      {
        ok: false,
        error: { code: 'send_failed', message: 'x', requestId: 'req_01M81C1XJB7Y4KHB01G4B1P0M5' },
      },
      headers,
    );

  it('is retried when the wrapper says Retry-After (transient, keyed), and final otherwise', async () => {
    const keyed = fakeFetch(failed({ 'retry-after': '0' }), json(200, sent));
    const wrapper = new MailsvcWrapper({ baseUrl: BASE, fetch: keyed.fetch });
    await wrapper.auth.loginCode({ to: 'jane@example.com', data: { code: '1' } });
    expect(keyed.calls).toHaveLength(2);
    const bodies = keyed.calls.map((c) => JSON.parse(String(c.init.body)) as { idempotencyKey: string });
    expect(bodies[1]!.idempotencyKey).toBe(bodies[0]!.idempotencyKey);

    const final = fakeFetch(failed());
    const err = await failure(
      new MailsvcWrapper({ baseUrl: BASE, fetch: final.fetch }).auth.loginCode({
        to: 'jane@example.com',
        data: { code: '1' },
      }),
    );
    expect(err).toMatchObject({ code: 'send_failed', status: 500, attempts: 1 });
  });
});
