// Where SNS certificates and subscription confirmations may come from (sns.ts), and fetching a
// certificate: size, type and status checks.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchCertificate, isTrustedSnsCertUrl, isTrustedSnsSubscribeUrl } from './sns.js';
import { CERT, CERT_URL, confirmation } from './sns-test-messages.js';

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
