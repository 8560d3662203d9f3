// SNS message verification (sns.ts): the signatures, versions 1 and 2, over the documented strings.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySnsMessage } from './sns.js';
import { CERT_URL, certFetcher, confirmation, notification, refusal, sign } from './sns-test-messages.js';

describe('verifySnsMessage: signatures', () => {
  it('accepts a Notification signed with SignatureVersion 1 (SHA1withRSA) over the documented string', async () => {
    const fetcher = certFetcher();
    const signed = sign(notification(), '1');
    const verified = await verifySnsMessage(signed, fetcher, { cache: new Map() });
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect(verified).toEqual({
      Type: 'Notification',
      MessageId: signed.MessageId,
      TopicArn: signed.TopicArn,
      Subject: signed.Subject,
      Message: signed.Message,
      Timestamp: signed.Timestamp,
      SignatureVersion: '1',
      Signature: signed.Signature,
      SigningCertURL: CERT_URL,
      UnsubscribeURL: signed.UnsubscribeURL,
    });
  });

  it('accepts a Notification signed with SignatureVersion 2 (SHA256withRSA)', async () => {
    const verified = await verifySnsMessage(sign(notification(), '2'), certFetcher(), { cache: new Map() });
    expect(verified.SignatureVersion).toBe('2');
  });

  it('leaves Subject out of the string to sign when the Notification has none (absent or null)', async () => {
    const withoutSubject = notification({ Subject: undefined });
    const verified = await verifySnsMessage(sign(withoutSubject, '2'), certFetcher(), { cache: new Map() });
    expect(verified.Type === 'Notification' && verified.Subject).toBeUndefined();
    const nullSubject = { ...sign(withoutSubject, '1'), Subject: null };
    await expect(verifySnsMessage(nullSubject, certFetcher(), { cache: new Map() })).resolves.toBeTruthy();
  });

  it('accepts a SubscriptionConfirmation signed over Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type', async () => {
    for (const version of ['1', '2'] as const) {
      const signed = sign(confirmation(), version);
      const verified = await verifySnsMessage(signed, certFetcher(), { cache: new Map() });
      expect(verified.Type).toBe('SubscriptionConfirmation');
      expect(verified.Type !== 'Notification' && verified.SubscribeURL).toBe(signed.SubscribeURL);
      expect(verified.Type !== 'Notification' && verified.Token).toBe(signed.Token);
    }
  });

  it('accepts an UnsubscribeConfirmation signed over the same fields as a SubscriptionConfirmation', async () => {
    const signed = sign({ ...confirmation(), Type: 'UnsubscribeConfirmation' }, '2');
    const verified = await verifySnsMessage(signed, certFetcher(), { cache: new Map() });
    expect(verified.Type).toBe('UnsubscribeConfirmation');
  });

  it('refuses a Notification whose Message was changed after signing', async () => {
    const signed = sign(notification(), '2');
    const tampered = { ...signed, Message: String(signed.Message).replace('Permanent', 'Transient') };
    expect(tampered.Message).not.toBe(signed.Message);
    expect(await refusal(verifySnsMessage(tampered, certFetcher(), { cache: new Map() }))).toBe(
      'bad-signature',
    );
  });

  it('refuses a Notification whose Subject was changed, added or removed after signing', async () => {
    const signed = sign(notification(), '1');
    const unsigned = sign(notification({ Subject: undefined }), '1');
    for (const tampered of [
      { ...signed, Subject: 'Something else' },
      { ...signed, Subject: undefined },
      { ...unsigned, Subject: 'Added later' },
    ]) {
      expect(await refusal(verifySnsMessage(tampered, certFetcher(), { cache: new Map() }))).toBe(
        'bad-signature',
      );
    }
  });

  it('refuses a Notification whose MessageId, Timestamp, TopicArn or Type was changed after signing', async () => {
    const signed = sign(notification(), '2');
    for (const tampered of [
      { ...signed, MessageId: 'a-different-id' },
      { ...signed, Timestamp: '2026-11-20T09:15:06.123Z' },
      { ...signed, TopicArn: 'arn:aws:sns:us-east-1:123456789012:another-topic' },
      {
        ...signed,
        Type: 'SubscriptionConfirmation',
        SubscribeURL: 'https://sns.us-east-1.amazonaws.com/',
        Token: 'x',
      },
    ]) {
      expect(await refusal(verifySnsMessage(tampered, certFetcher(), { cache: new Map() }))).toBe(
        'bad-signature',
      );
    }
  });

  it('refuses a SubscriptionConfirmation whose Token or SubscribeURL was changed after signing', async () => {
    const signed = sign(confirmation(), '1');
    for (const tampered of [
      { ...signed, Token: `${signed.Token}00` },
      { ...signed, SubscribeURL: `${signed.SubscribeURL}&x=1` },
    ]) {
      expect(await refusal(verifySnsMessage(tampered, certFetcher(), { cache: new Map() }))).toBe(
        'bad-signature',
      );
    }
  });

  it('refuses a signature made with a key other than the certificate’s', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const otherKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const signed = sign(notification(), '2', otherKey);
    expect(await refusal(verifySnsMessage(signed, certFetcher(), { cache: new Map() }))).toBe(
      'bad-signature',
    );
  });

  it('refuses a SignatureVersion 1 signature presented as version 2, and the reverse', async () => {
    const v1 = sign(notification(), '1');
    const v2 = sign(notification(), '2');
    for (const swapped of [
      { ...v1, SignatureVersion: '2' },
      { ...v2, SignatureVersion: '1' },
    ]) {
      expect(await refusal(verifySnsMessage(swapped, certFetcher(), { cache: new Map() }))).toBe(
        'bad-signature',
      );
    }
  });

  it('refuses a Signature that is not base64', async () => {
    const signed = sign(notification(), '2');
    for (const Signature of ['', 'not base64!', `${signed.Signature}=`]) {
      expect(
        await refusal(verifySnsMessage({ ...signed, Signature }, certFetcher(), { cache: new Map() })),
      ).toBe('malformed');
    }
  });
});
