// SNS message verification (sns.ts): the fields and URLs a message must have, the signing
// certificate's validity and cache, and the SES notifications a verified message carries.
import { X509Certificate } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { sesFeedback } from './ses.js';
import { type CertificateFetcher, SnsVerificationError, verifySnsMessage } from './sns.js';
import {
  CERT,
  CERT_1DAY,
  CERT_URL,
  certFetcher,
  confirmation,
  notification,
  refusal,
  sign,
} from './sns-test-messages.js';

describe('verifySnsMessage: fields and URLs', () => {
  it('refuses a message whose signing certificate is not on an sns.<region>.amazonaws.com host, without fetching it', async () => {
    for (const SigningCertURL of [
      'https://sns.us-east-1.amazonaws.com.evil.com/SimpleNotificationService-0.pem',
      'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-0.pem',
      'https://evil.com/sns.us-east-1.amazonaws.com/SimpleNotificationService-0.pem',
      'https://user@sns.us-east-1.amazonaws.com/SimpleNotificationService-0.pem',
      'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0.txt',
    ]) {
      const fetcher = vi.fn<CertificateFetcher>(async () => CERT);
      const signed = sign(notification({ SigningCertURL }), '2');
      expect(await refusal(verifySnsMessage(signed, fetcher, { cache: new Map() })), SigningCertURL).toBe(
        'untrusted-certificate-url',
      );
      expect(fetcher).not.toHaveBeenCalled();
    }
  });

  it('refuses a confirmation whose SubscribeURL is not on an SNS host, without fetching the certificate', async () => {
    const fetcher = vi.fn<CertificateFetcher>(async () => CERT);
    const signed = sign(
      { ...confirmation(), SubscribeURL: 'https://evil.com/?Action=ConfirmSubscription&Token=1' },
      '1',
    );
    expect(await refusal(verifySnsMessage(signed, fetcher, { cache: new Map() }))).toBe(
      'untrusted-subscribe-url',
    );
    expect(fetcher).not.toHaveBeenCalled();
  });

  it('refuses a SignatureVersion other than 1 or 2, without fetching the certificate', async () => {
    const signed = sign(notification(), '2');
    for (const SignatureVersion of ['3', '0', '', 'v2']) {
      const fetcher = vi.fn<CertificateFetcher>(async () => CERT);
      expect(await refusal(verifySnsMessage({ ...signed, SignatureVersion }, fetcher))).toBe(
        'unsupported-signature-version',
      );
      expect(fetcher).not.toHaveBeenCalled();
    }
    expect(await refusal(verifySnsMessage({ ...signed, SignatureVersion: 2 }, certFetcher()))).toBe(
      'malformed',
    );
  });

  it('refuses a message missing a required field or carrying one that is not a string', async () => {
    const signed = sign(notification(), '2');
    for (const field of [
      'Type',
      'MessageId',
      'TopicArn',
      'Message',
      'Timestamp',
      'SignatureVersion',
      'Signature',
      'SigningCertURL',
    ]) {
      const missing = { ...signed, [field]: undefined };
      const reason = await refusal(verifySnsMessage(missing, certFetcher(), { cache: new Map() }));
      expect(reason, field).toBe('malformed');
      const notString = { ...signed, [field]: 42 };
      expect(await refusal(verifySnsMessage(notString, certFetcher(), { cache: new Map() })), field).toBe(
        'malformed',
      );
    }
    const subjectNotString = { ...signed, Subject: ['a'] };
    expect(await refusal(verifySnsMessage(subjectNotString, certFetcher(), { cache: new Map() }))).toBe(
      'malformed',
    );
  });

  it('refuses a confirmation without its SubscribeURL or Token', async () => {
    const signed = sign(confirmation(), '2');
    for (const field of ['SubscribeURL', 'Token']) {
      expect(
        await refusal(
          verifySnsMessage({ ...signed, [field]: undefined }, certFetcher(), { cache: new Map() }),
        ),
      ).toBe('malformed');
    }
  });

  it('refuses anything that is not an SNS message object of a known Type', async () => {
    for (const input of [null, undefined, 'a string', 42, [sign(notification(), '2')]]) {
      expect(await refusal(verifySnsMessage(input, certFetcher()))).toBe('malformed');
    }
    const unknownType = sign(notification({ Type: 'Alert' }), '2');
    expect(await refusal(verifySnsMessage(unknownType, certFetcher()))).toBe('malformed');
  });
});

describe('verifySnsMessage: certificates', () => {
  const oneDay = new X509Certificate(CERT_1DAY);
  const from = new Date(oneDay.validFrom).getTime();
  const to = new Date(oneDay.validTo).getTime();

  it('refuses a certificate past its validTo, or before its validFrom, at the given time', async () => {
    const signed = sign(notification(), '2');
    const at = (ms: number) =>
      verifySnsMessage(signed, certFetcher(CERT_1DAY), { cache: new Map(), now: new Date(ms) });
    await expect(at(from + 60_000)).resolves.toBeTruthy();
    expect(await refusal(at(to + 1_000))).toBe('certificate-expired');
    expect(await refusal(at(from - 1_000))).toBe('certificate-not-yet-valid');
  });

  it('checks a cached certificate’s dates on every message', async () => {
    const cache = new Map<string, string>();
    const signed = sign(notification(), '1');
    await verifySnsMessage(signed, certFetcher(CERT_1DAY), { cache, now: new Date(from + 60_000) });
    const fetcher = certFetcher(CERT_1DAY);
    expect(await refusal(verifySnsMessage(signed, fetcher, { cache, now: new Date(to + 1_000) }))).toBe(
      'certificate-expired',
    );
    expect(fetcher).not.toHaveBeenCalled();
  });

  it('fetches a certificate once for two messages signed with it (cache per SigningCertURL)', async () => {
    const cache = new Map<string, string>();
    const fetcher = certFetcher();
    await verifySnsMessage(sign(notification(), '1'), fetcher, { cache });
    await verifySnsMessage(sign(confirmation(), '2'), fetcher, { cache });
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect([...cache.keys()]).toEqual([CERT_URL]);
  });

  it('keeps at most 20 certificates in the cache, dropping the least recently used', async () => {
    const cache = new Map<string, string>();
    const url = (i: number) => `https://sns.us-east-1.amazonaws.com/SimpleNotificationService-${i}.pem`;
    for (let i = 0; i < 25; i++) {
      const signed = sign(notification({ SigningCertURL: url(i) }), '2');
      await verifySnsMessage(signed, certFetcher(CERT, url(i)), { cache });
    }
    expect(cache.size).toBe(20);
    expect(cache.has(url(4))).toBe(false);
    expect(cache.has(url(5))).toBe(true);
    expect(cache.has(url(24))).toBe(true);
  });

  it('reports a fetcher that fails as certificate-unavailable, and caches nothing', async () => {
    const cache = new Map<string, string>();
    const failing = vi.fn<CertificateFetcher>(async () => {
      throw new Error('connect ETIMEDOUT');
    });
    const err = await verifySnsMessage(sign(notification(), '2'), failing, { cache }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SnsVerificationError);
    expect((err as SnsVerificationError).reason).toBe('certificate-unavailable');
    expect((err as SnsVerificationError).cause).toBeInstanceOf(Error);
    expect(cache.size).toBe(0);
  });

  it('refuses what is not an X.509 certificate, and does not cache it', async () => {
    const cache = new Map<string, string>();
    const notACert = `-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`;
    expect(await refusal(verifySnsMessage(sign(notification(), '2'), certFetcher(notACert), { cache }))).toBe(
      'invalid-certificate',
    );
    expect(cache.size).toBe(0);
  });
});

describe('verified SES notifications', () => {
  it('carry the SES notification in Message, which reads as feedback once the signature is verified', async () => {
    const verified = await verifySnsMessage(sign(notification(), '2'), certFetcher(), { cache: new Map() });
    const feedback = sesFeedback(verified.Message);
    expect(feedback?.eventType).toBe('Bounce');
    expect(feedback?.ref.mailsvcMessageId).toBe('msg_01JD3Z6Q8K4W5X7Y9ZABCDEFGH');
    expect(feedback?.items.map((i) => [i.recipient, i.hard])).toEqual([
      ['jane.doe@example.org', true],
      ['richard.roe@example.net', false],
    ]);
  });
});
