import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../clock.js';
import type { EndpointSecrets } from '../../db/repositories/webhook-endpoints.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import { CATCHER_KEEP, verifyCaught, WebhookCatcher } from './webhook-catcher.js';

const NOW = new Date('2026-11-22T10:15:30.123Z');
const URL = 'http://127.0.0.1:3000/dev/inbox/webhooks/catch';

function signed(secret: string, at = NOW, body = '{"type":"webhook.test","data":{}}') {
  return {
    url: URL,
    body,
    headers: {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', at, body),
    },
  };
}

const endpoint = (over: Partial<EndpointSecrets> = {}): EndpointSecrets => ({
  id: 'whe_1',
  secret: newWebhookSecret(),
  previous_secret: null,
  previous_secret_until: null,
  ...over,
});

describe('verifyCaught', () => {
  it('verifies with the secret of whichever endpoint pointing here signed it', () => {
    const [a, b] = [endpoint({ id: 'whe_a' }), endpoint({ id: 'whe_b' })];
    expect(verifyCaught(signed(b.secret), [a, b], NOW)).toMatchObject({
      result: 'verified',
      endpointId: 'whe_b',
    });
  });

  it('takes a previous secret only until its grace ends', () => {
    const old = newWebhookSecret();
    const inGrace = endpoint({ previous_secret: old, previous_secret_until: new Date(NOW.getTime() + 1000) });
    const ended = endpoint({ previous_secret: old, previous_secret_until: NOW });
    expect(verifyCaught(signed(old), [inGrace], NOW).result).toBe('verified');
    expect(verifyCaught(signed(old), [ended], NOW).result).toBe('failed');
  });

  it('refuses a timestamp more than 5 minutes from the clock, either way, as a verifier does', () => {
    const e = endpoint();
    const at = (s: number) => new Date(NOW.getTime() + s * 1000);
    expect(verifyCaught(signed(e.secret, at(-299)), [e], NOW).result).toBe('verified');
    expect(verifyCaught(signed(e.secret, at(299)), [e], NOW).result).toBe('verified');
    expect(verifyCaught(signed(e.secret, at(-302)), [e], NOW).reason).toContain(
      "302 s behind this server's clock",
    );
    expect(verifyCaught(signed(e.secret, at(302)), [e], NOW).reason).toContain(
      "302 s ahead of this server's clock",
    );
  });

  it('names the missing header, and refuses a changed body', () => {
    const e = endpoint();
    const { 'webhook-signature': _, ...unsigned } = signed(e.secret).headers;
    expect(verifyCaught({ ...signed(e.secret), headers: unsigned }, [e], NOW).reason).toBe(
      'not verified: no webhook-signature header',
    );
    expect(
      verifyCaught({ ...signed(e.secret), body: '{"type":"webhook.test","data":{"x":1}}' }, [e], NOW).result,
    ).toBe('failed');
  });

  it('says no endpoint points here when none does, whatever the signature', () => {
    expect(verifyCaught(signed(newWebhookSecret()), [], NOW)).toEqual({
      result: 'no_endpoint',
      reason: 'not verified (no endpoint of this database points here)',
    });
  });
});

describe('WebhookCatcher', () => {
  it(`keeps the newest ${CATCHER_KEEP}, newest first`, async () => {
    const catcher = new WebhookCatcher(fixedClock(NOW), async () => []);
    for (let i = 1; i <= CATCHER_KEEP + 5; i++)
      await catcher.catch({ url: URL, headers: {}, body: String(i) });
    expect(catcher.count).toBe(CATCHER_KEEP);
    const kept = catcher.list();
    expect(kept[0]!.body).toBe(String(CATCHER_KEEP + 5));
    expect(kept.at(-1)!.body).toBe('6');
  });

  it('keeps a request it could not check, saying why', async () => {
    const down = new WebhookCatcher(fixedClock(NOW), async () => {
      throw new Error('connection refused');
    });
    expect((await down.catch(signed(newWebhookSecret()))).verification.result).toBe('not_checked');
    const noDatabase = new WebhookCatcher(fixedClock(NOW), undefined);
    expect((await noDatabase.catch(signed(newWebhookSecret()))).verification.reason).toContain('no database');
  });
});
