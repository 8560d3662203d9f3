import { createSign, generateKeyPairSync, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sesFeedback } from './ses.js';
import {
  type CertificateFetcher,
  fetchCertificate,
  isTrustedSnsCertUrl,
  isTrustedSnsSubscribeUrl,
  SnsVerificationError,
  verifySnsMessage,
} from './sns.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures-ses');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

const KEY = fixture('test-signing-key.pem');
const CERT = fixture('test-signing-cert.pem');
const CERT_1DAY = fixture('test-signing-cert-1day.pem');
const CERT_URL =
  'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000000000000.pem';

type Envelope = Record<string, unknown>;

/**
 * The string SNS signs, written out here from AWS's description rather than taken from sns.ts:
 * `Key\nvalue\n` for each signed field in this order; Subject only when the message has one.
 */
function stringToSign(msg: Envelope): string {
  const keys =
    msg.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys
    .filter((k) => msg[k] !== undefined)
    .map((k) => `${k}\n${msg[k]}\n`)
    .join('');
}

function sign<T extends Envelope>(msg: T, version: '1' | '2', key: string = KEY): T {
  const signer = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  signer.update(stringToSign(msg), 'utf8');
  return { ...msg, SignatureVersion: version, Signature: signer.sign(key, 'base64') };
}

function notification(extra: Envelope = {}): Envelope {
  return {
    Type: 'Notification',
    MessageId: '2f0c5e1a-9d47-4b8e-a3f6-7c1d0e9b8a52',
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:mailsvc-ses-feedback',
    Subject: 'Amazon SES Email Event Notification',
    Message: JSON.stringify(JSON.parse(fixture('bounce-permanent.json'))),
    Timestamp: '2026-11-20T09:15:05.123Z',
    SignatureVersion: '1',
    Signature: '',
    SigningCertURL: CERT_URL,
    UnsubscribeURL:
      'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:123456789012:mailsvc-ses-feedback:4b1e2c3d-0000-4000-8000-000000000000',
    ...extra,
  };
}

const confirmation = (): Envelope => JSON.parse(fixture('subscription-confirmation.json'));

/** A fetcher that hands out `pem` and checks it is asked for the SigningCertURL of the message. */
function certFetcher(pem: string = CERT, expectedUrl: string = CERT_URL) {
  const fetcher = vi.fn<CertificateFetcher>(async (url) => {
    expect(url.href).toBe(expectedUrl);
    return pem;
  });
  return fetcher;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => {
      throw new Error('expected the message to be refused');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SnsVerificationError);
  return (err as SnsVerificationError).reason;
}

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

describe('isTrustedSnsCertUrl', () => {
  it.each([
    'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000000000000.pem',
    'https://sns.eu-west-2.amazonaws.com/SimpleNotificationService-abc.pem',
    'https://sns.ap-southeast-1.amazonaws.com/SimpleNotificationService-abc.pem',
    'https://sns.us-gov-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
    'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem',
    'https://sns.cn-northwest-1.amazonaws.com.cn/SimpleNotificationService-abc.pem',
    'https://sns.us-east-1.amazonaws.com:443/SimpleNotificationService-abc.pem',
    'https://SNS.US-EAST-1.AMAZONAWS.COM/SimpleNotificationService-abc.pem',
  ])('accepts an https .pem on an sns.<region>.amazonaws.com(.cn) host: %s', (url) => {
    expect(isTrustedSnsCertUrl(url)).toBeInstanceOf(URL);
  });

  it.each([
    ['a look-alike host ending elsewhere', 'https://sns.us-east-1.amazonaws.com.evil.com/x.pem'],
    ['plain http', 'http://sns.us-east-1.amazonaws.com/x.pem'],
    ['the SNS host only in the path', 'https://evil.com/sns.us-east-1.amazonaws.com/x.pem'],
    ['userinfo', 'https://user@sns.us-east-1.amazonaws.com/x.pem'],
    ['userinfo with a password', 'https://user:pw@sns.us-east-1.amazonaws.com/x.pem'],
    ['empty userinfo', 'https://@sns.us-east-1.amazonaws.com/x.pem'],
    ['a host hidden behind userinfo', 'https://sns.us-east-1.amazonaws.com@evil.com/x.pem'],
    ['a backslash', 'https://sns.us-east-1.amazonaws.com\\@evil.com/x.pem'],
    ['a fragment trick', 'https://evil.com#@sns.us-east-1.amazonaws.com/x.pem'],
    ['a non-default port', 'https://sns.us-east-1.amazonaws.com:8443/x.pem'],
    ['a path not ending in .pem', 'https://sns.us-east-1.amazonaws.com/x.pem.txt'],
    ['a query', 'https://sns.us-east-1.amazonaws.com/x.pem?a=b'],
    ['a fragment', 'https://sns.us-east-1.amazonaws.com/x.pem#a'],
    ['no region', 'https://sns.amazonaws.com/x.pem'],
    ['another service', 'https://sqs.us-east-1.amazonaws.com/x.pem'],
    ['a subdomain of an SNS host', 'https://x.sns.us-east-1.amazonaws.com/x.pem'],
    ['a China region on the .com domain', 'https://sns.cn-north-1.amazonaws.com/x.pem'],
    ['another region on the .com.cn domain', 'https://sns.us-east-1.amazonaws.com.cn/x.pem'],
    ['a trailing dot', 'https://sns.us-east-1.amazonaws.com./x.pem'],
    ['an S3 bucket host', 'https://sns.us-east-1.amazonaws.com.s3.amazonaws.com/x.pem'],
    ['another scheme', 'ftp://sns.us-east-1.amazonaws.com/x.pem'],
    ['not a URL', 'sns.us-east-1.amazonaws.com/x.pem'],
    ['an empty string', ''],
  ])('refuses %s', (_, url) => {
    expect(isTrustedSnsCertUrl(url)).toBeNull();
  });
});

describe('isTrustedSnsSubscribeUrl', () => {
  it('accepts https on an SNS host with path / and any query', () => {
    expect(isTrustedSnsSubscribeUrl(String(confirmation().SubscribeURL))).toBeInstanceOf(URL);
    expect(
      isTrustedSnsSubscribeUrl('https://sns.cn-north-1.amazonaws.com.cn/?Action=ConfirmSubscription'),
    ).toBeInstanceOf(URL);
    expect(isTrustedSnsSubscribeUrl('https://sns.eu-west-2.amazonaws.com/')).toBeInstanceOf(URL);
  });

  it.each([
    'http://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription',
    'https://sns.us-east-1.amazonaws.com.evil.com/?Action=ConfirmSubscription',
    'https://evil.com/?Action=ConfirmSubscription&host=sns.us-east-1.amazonaws.com',
    'https://user@sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription',
    'https://sns.us-east-1.amazonaws.com:8443/?Action=ConfirmSubscription',
    'https://sns.us-east-1.amazonaws.com/confirm?Action=ConfirmSubscription',
    'https://sns.us-east-1.amazonaws.com/x.pem',
  ])('refuses another scheme, host, userinfo, port or path: %s', (url) => {
    expect(isTrustedSnsSubscribeUrl(url)).toBeNull();
  });
});

describe('fetchCertificate', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const respond = (body: BodyInit, init?: ResponseInit) => vi.fn(async () => new Response(body, init));

  it('asks without following redirects, with a time limit, and returns the PEM', async () => {
    const fetchStub = respond(CERT);
    vi.stubGlobal('fetch', fetchStub);
    await expect(fetchCertificate(new URL(CERT_URL))).resolves.toBe(CERT);
    const [url, init] = fetchStub.mock.calls[0] as unknown as [URL, RequestInit];
    expect(String(url)).toBe(CERT_URL);
    expect(init.redirect).toBe('error');
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('refuses a response over 16 KB, declared or streamed', async () => {
    const big = `${CERT}${'x'.repeat(16 * 1024)}`;
    vi.stubGlobal('fetch', respond(big));
    await expect(fetchCertificate(new URL(CERT_URL))).rejects.toThrow(/larger than/);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(1024).fill(65));
        controller.close();
      },
    });
    vi.stubGlobal('fetch', respond(stream));
    await expect(fetchCertificate(new URL(CERT_URL))).rejects.toThrow(/larger than/);
  });

  it('refuses a response that holds no PEM certificate, or an HTTP error', async () => {
    vi.stubGlobal('fetch', respond('<html>hello</html>'));
    await expect(fetchCertificate(new URL(CERT_URL))).rejects.toThrow(/no PEM certificate/);
    vi.stubGlobal('fetch', respond(CERT, { status: 404 }));
    await expect(fetchCertificate(new URL(CERT_URL))).rejects.toThrow(/HTTP 404/);
  });

  it('refuses a URL off the SNS hosts without asking it', async () => {
    const fetchStub = respond(CERT);
    vi.stubGlobal('fetch', fetchStub);
    await expect(fetchCertificate(new URL('https://evil.com/x.pem'))).rejects.toThrow(
      /not an SNS certificate URL/,
    );
    expect(fetchStub).not.toHaveBeenCalled();
  });
});
