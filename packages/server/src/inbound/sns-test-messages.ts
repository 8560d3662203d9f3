// What the SNS verification tests (sns*.test.ts) sign and check with: the test key and
// certificates of fixtures-ses/, the string SNS signs (written out from AWS's description, not
// taken from sns.ts), signed Notification and SubscriptionConfirmation envelopes, a certificate
// fetcher that checks what it is asked for, and the reason a message is refused.
import { createSign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';
import { type CertificateFetcher, SnsVerificationError } from './sns.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures-ses');
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

export const KEY = fixture('test-signing-key.pem');
export const CERT = fixture('test-signing-cert.pem');
export const CERT_1DAY = fixture('test-signing-cert-1day.pem');
export const CERT_URL =
  'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000000000000.pem';

export type Envelope = Record<string, unknown>;

/**
 * The string SNS signs, written out here from AWS's description rather than taken from sns.ts:
 * `Key\nvalue\n` for each signed field in this order; Subject only when the message has one.
 */
export function stringToSign(msg: Envelope): string {
  const keys =
    msg.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys
    .filter((k) => msg[k] !== undefined)
    .map((k) => `${k}\n${msg[k]}\n`)
    .join('');
}

export function sign<T extends Envelope>(msg: T, version: '1' | '2', key: string = KEY): T {
  const signer = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  signer.update(stringToSign(msg), 'utf8');
  return { ...msg, SignatureVersion: version, Signature: signer.sign(key, 'base64') };
}

export function notification(extra: Envelope = {}): Envelope {
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

export const confirmation = (): Envelope => JSON.parse(fixture('subscription-confirmation.json'));

/** A fetcher that hands out `pem` and checks it is asked for the SigningCertURL of the message. */
export function certFetcher(pem: string = CERT, expectedUrl: string = CERT_URL) {
  const fetcher = vi.fn<CertificateFetcher>(async (url) => {
    expect(url.href).toBe(expectedUrl);
    return pem;
  });
  return fetcher;
}

export async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => {
      throw new Error('expected the message to be refused');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SnsVerificationError);
  return (err as SnsVerificationError).reason;
}
