// The SDK's verifyWebhook() against events the server signed (webhooks/signing.ts, with the
// standardwebhooks package): accepted with either secret during a rotation, refused when the body,
// the secret, the id or the time do not match; the answer is the typed event union.
import { newWebhookSecret, type SigningSecrets, signWebhook } from '@mailsvc/server/src/webhooks/signing.js';
import { Webhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../src/index.js';

const at = new Date('2026-11-22T10:15:30.123Z');
const body = JSON.stringify({
  type: 'message.bounced',
  timestamp: at.toISOString(),
  data: { messageId: 'msg_01JD0000000000000000000000', to: 'jane@example.com', bounceType: 'hard' },
});
const secret = newWebhookSecret();
const signed = (
  b = body,
  secrets: SigningSecrets = { secret, previousSecret: null, previousSecretUntil: null },
) => signWebhook('evt_01JD0000000000000000000000', at, b, secrets);

describe('verifyWebhook', () => {
  it('returns the event of a request the server signed, typed by its type', async () => {
    const event = await verifyWebhook(body, signed(), secret, at.getTime());
    expect(event.type).toBe('message.bounced');
    if (event.type === 'message.bounced') {
      expectTypeOf(event.data.bounceType).toEqualTypeOf<'hard'>();
      expect(event.data.to).toBe('jane@example.com');
    }
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    // the same request passes the reference verifier
    const realNow = Date.now;
    Date.now = () => at.getTime();
    try {
      expect(new Webhook(secret).verify(body, signed())).toMatchObject({ type: 'message.bounced' });
    } finally {
      Date.now = realNow;
    }
  });

  it('takes the raw body as bytes and the headers as a Fetch Headers object', async () => {
    const headers = new Headers(signed());
    const event = await verifyWebhook(new TextEncoder().encode(body), headers, secret, at.getTime());
    expect(event.type).toBe('message.bounced');
  });

  it('accepts either secret while both sign after a rotation', async () => {
    const next = newWebhookSecret();
    const headers = signed(body, {
      secret: next,
      previousSecret: secret,
      previousSecretUntil: new Date(at.getTime() + 1),
    });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    await expect(verifyWebhook(body, headers, secret, at.getTime())).resolves.toMatchObject({
      type: 'message.bounced',
    });
    await expect(verifyWebhook(body, headers, next, at.getTime())).resolves.toMatchObject({
      type: 'message.bounced',
    });
  });

  it.each([
    ['a changed body', () => [body.replace('jane', 'john'), signed(), secret, at.getTime()]],
    ['another secret', () => [body, signed(), newWebhookSecret(), at.getTime()]],
    ['another id', () => [body, { ...signed(), 'webhook-id': 'evt_other' }, secret, at.getTime()]],
    ['a timestamp 6 minutes old', () => [body, signed(), secret, at.getTime() + 6 * 60_000]],
    ['no signature header', () => [body, { ...signed(), 'webhook-signature': '' }, secret, at.getTime()]],
    [
      'a signature of another version',
      () => [
        body,
        { ...signed(), 'webhook-signature': `v2,${signed()['webhook-signature'].slice(3)}` },
        secret,
        at.getTime(),
      ],
    ],
  ] as const)('refuses %s', async (_name, args) => {
    const [b, h, s, now] = args() as [string, Record<string, string>, string, number];
    await expect(verifyWebhook(b, h, s, now)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
