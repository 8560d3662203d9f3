// Amazon SNS HTTP(S) deliveries: checks that a message really was signed by SNS before anything
// reads it. SNS signs a fixed selection of the message's fields with the private key of a
// certificate it publishes at SigningCertURL; we accept that URL only on an SNS host of AWS, fetch
// the certificate from there (over TLS, no redirects), and verify the signature with its key.
// What the verified Message says is read elsewhere (ses.ts for SES notifications).
import { createVerify, X509Certificate } from 'node:crypto';

/** Returns the PEM text of the signing certificate at `url` (already checked to be an SNS host). */
export type CertificateFetcher = (url: URL) => Promise<string>;

export type SnsMessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

interface SnsMessageBase {
  MessageId: string;
  TopicArn: string;
  /** The payload: for SES, a JSON string of the notification. */
  Message: string;
  Timestamp: string;
  /** `1`: SHA1withRSA, `2`: SHA256withRSA. */
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
}

export interface SnsNotification extends SnsMessageBase {
  Type: 'Notification';
  Subject?: string;
  /** Not signed by SNS: do not act on it without checking it with isTrustedSnsSubscribeUrl. */
  UnsubscribeURL?: string;
}

export interface SnsSubscriptionMessage extends SnsMessageBase {
  Type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
  /** Checked with isTrustedSnsSubscribeUrl and covered by the signature. */
  SubscribeURL: string;
  Token: string;
}

/** A message whose signature was verified; only the fields SNS documents are kept. */
export type SnsMessage = SnsNotification | SnsSubscriptionMessage;

export type SnsVerificationReason =
  | 'malformed' // not an object, a required field missing or not a string, an unknown Type
  | 'untrusted-certificate-url' // SigningCertURL is not an https .pem on an SNS host of AWS
  | 'untrusted-subscribe-url' // SubscribeURL is not https on an SNS host of AWS
  | 'unsupported-signature-version' // SignatureVersion other than 1 or 2
  | 'certificate-unavailable' // the fetcher failed (network, timeout, size): worth a retry
  | 'invalid-certificate' // what was fetched is not an X.509 certificate with an RSA key
  | 'certificate-not-yet-valid'
  | 'certificate-expired'
  | 'bad-signature';

export class SnsVerificationError extends Error {
  readonly reason: SnsVerificationReason;

  constructor(reason: SnsVerificationReason, detail?: string, options?: { cause?: unknown }) {
    super(detail ? `SNS message refused (${reason}): ${detail}` : `SNS message refused (${reason})`, options);
    this.name = 'SnsVerificationError';
    this.reason = reason;
  }
}

// sns.<region>.amazonaws.com for the commercial and GovCloud partitions (us-east-1, eu-west-2,
// us-gov-west-1, …) and sns.<region>.amazonaws.com.cn for the China regions (cn-north-1,
// cn-northwest-1), each on its own domain only. Anything else, however similar, is refused: the
// certificate decides whose signatures we believe.
const SNS_HOST =
  /^sns\.(?:(?!cn-)[a-z]{2}(?:-[a-z]+)+-\d{1,2}\.amazonaws\.com|cn-[a-z]+-\d{1,2}\.amazonaws\.com\.cn)$/;

/** An https URL on an SNS host: no userinfo, default port, nothing the URL parser would quietly repair. */
function snsHttpsUrl(raw: string): URL | null {
  // SNS URLs are printable ASCII: anything else (controls, invisible or bidi characters, which the
  // URL parser would drop or percent-encode) means the URL is not one SNS wrote.
  if (typeof raw !== 'string' || !/^[\x21-\x7e]+$/.test(raw) || raw.includes('\\')) return null;
  // The authority as written: refuse userinfo even when empty (`https://@sns…`, `https://:@sns…`).
  const authority = /^https:\/\/([^/?#]*)/i.exec(raw)?.[1];
  if (authority === undefined || authority.includes('@')) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  // The parser drops an explicit :443, so an empty port is the default one.
  if (url.port !== '') return null;
  return SNS_HOST.test(url.hostname) ? url : null;
}

/**
 * The SigningCertURL as a URL when it may be fetched: https, host exactly `sns.<region>.amazonaws.com`
 * (or `sns.cn-….amazonaws.com.cn`), no userinfo or port, a path ending in `.pem` and no query or
 * fragment (SNS certificate URLs have neither). Otherwise null.
 */
export function isTrustedSnsCertUrl(url: string): URL | null {
  const parsed = snsHttpsUrl(url);
  if (parsed === null) return null;
  return parsed.search === '' && parsed.hash === '' && parsed.pathname.endsWith('.pem') ? parsed : null;
}

/** The SubscribeURL as a URL when it may be visited: same host rule, https, path `/`, any query. */
export function isTrustedSnsSubscribeUrl(url: string): URL | null {
  const parsed = snsHttpsUrl(url);
  if (parsed === null) return null;
  return parsed.pathname === '/' && parsed.hash === '' ? parsed : null;
}

const FETCH_TIMEOUT_MS = 5_000;
const CERT_MAX_BYTES = 16 * 1024;
const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';

/** Reads a response body, giving up past `max` bytes (a certificate is about 2 KB). */
async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new Error(`certificate larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Fetches a signing certificate: 5 s for the whole exchange, no redirects (a redirect could lead
 * off the SNS host we checked), at most 16 KB, and it must hold a PEM certificate.
 */
export const fetchCertificate: CertificateFetcher = async (url) => {
  if (!isTrustedSnsCertUrl(url.href)) throw new Error(`not an SNS certificate URL: ${url.href}`);
  const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`certificate fetch answered HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > CERT_MAX_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`certificate larger than ${CERT_MAX_BYTES} bytes`);
  }
  const pem = await readCapped(res, CERT_MAX_BYTES);
  if (!pem.includes(PEM_BEGIN)) throw new Error('the response holds no PEM certificate');
  return pem;
};

/** Certificates by URL when the caller passes no cache. SNS rotates them rarely; each has its own URL. */
const defaultCache = new Map<string, string>();
const CACHE_MAX = 20;

function remember(cache: Map<string, string>, key: string, pem: string): void {
  cache.delete(key);
  while (cache.size >= CACHE_MAX) {
    const oldest = cache.keys().next();
    if (oldest.done) break;
    cache.delete(oldest.value);
  }
  cache.set(key, pem);
}

const TYPES: ReadonlySet<string> = new Set<SnsMessageType>([
  'Notification',
  'SubscriptionConfirmation',
  'UnsubscribeConfirmation',
]);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(msg: Record<string, unknown>, key: string): string {
  const value = msg[key];
  if (typeof value !== 'string')
    throw new SnsVerificationError('malformed', `${key} is missing or not a string`);
  return value;
}

/** The fields of an unverified message, checked for shape only. */
function readFields(msg: unknown): SnsMessage {
  if (!isRecord(msg)) throw new SnsVerificationError('malformed', 'not a JSON object');
  const type = requireString(msg, 'Type');
  if (!TYPES.has(type)) throw new SnsVerificationError('malformed', `unknown Type ${JSON.stringify(type)}`);
  const version = requireString(msg, 'SignatureVersion');
  if (version !== '1' && version !== '2') {
    throw new SnsVerificationError('unsupported-signature-version', JSON.stringify(version));
  }
  const common: SnsMessageBase = {
    MessageId: requireString(msg, 'MessageId'),
    TopicArn: requireString(msg, 'TopicArn'),
    Message: requireString(msg, 'Message'),
    Timestamp: requireString(msg, 'Timestamp'),
    SignatureVersion: version,
    Signature: requireString(msg, 'Signature'),
    SigningCertURL: requireString(msg, 'SigningCertURL'),
  };
  if (type === 'Notification') {
    const out: SnsNotification = { Type: 'Notification', ...common };
    // Subject is optional; a null Subject is the same as none (some JSON encoders write it so).
    if (msg.Subject !== undefined && msg.Subject !== null) out.Subject = requireString(msg, 'Subject');
    if (typeof msg.UnsubscribeURL === 'string') out.UnsubscribeURL = msg.UnsubscribeURL;
    return out;
  }
  return {
    Type: type as SnsSubscriptionMessage['Type'],
    ...common,
    SubscribeURL: requireString(msg, 'SubscribeURL'),
    Token: requireString(msg, 'Token'),
  };
}

/**
 * The string SNS signed, as AWS documents it ("Verifying the signatures of Amazon SNS messages"):
 * for each signed field, in this fixed (byte-wise sorted) order, the field name, a newline, the
 * value exactly as received, a newline. A Notification signs Message, MessageId, Subject — only
 * when the message has one —, Timestamp, TopicArn and Type; the two confirmations sign Message,
 * MessageId, SubscribeURL, Timestamp, Token, TopicArn and Type. Other fields (UnsubscribeURL,
 * MessageAttributes, the signature fields themselves) are not signed.
 */
function stringToSign(msg: SnsMessage): string {
  const pairs: [string, string][] =
    msg.Type === 'Notification'
      ? [
          ['Message', msg.Message],
          ['MessageId', msg.MessageId],
          ...(msg.Subject !== undefined ? [['Subject', msg.Subject] as [string, string]] : []),
          ['Timestamp', msg.Timestamp],
          ['TopicArn', msg.TopicArn],
          ['Type', msg.Type],
        ]
      : [
          ['Message', msg.Message],
          ['MessageId', msg.MessageId],
          ['SubscribeURL', msg.SubscribeURL],
          ['Timestamp', msg.Timestamp],
          ['Token', msg.Token],
          ['TopicArn', msg.TopicArn],
          ['Type', msg.Type],
        ];
  return pairs.map(([key, value]) => `${key}\n${value}\n`).join('');
}

export interface VerifySnsOptions {
  /** Certificate PEMs by URL; at most 20 are kept (oldest use dropped first). A shared one by default. */
  cache?: Map<string, string>;
  /** The time the certificate must be valid at; now by default (tests move it). */
  now?: Date;
}

/**
 * The message, typed, when SNS signed it; SnsVerificationError otherwise. Checks, in order: the
 * fields (Type, MessageId, TopicArn, Message, Timestamp, SignatureVersion, Signature,
 * SigningCertURL; SubscribeURL and Token for confirmations), SignatureVersion 1 (SHA1withRSA) or 2
 * (SHA256withRSA), SigningCertURL and SubscribeURL on an SNS host — before anything is fetched —,
 * the certificate (fetched or cached) valid now, and the signature over the documented string.
 *
 * It does not decide whether the topic is one we subscribed to or the message is fresh: compare
 * TopicArn with the configured topic and, if replays matter, Timestamp with the clock.
 */
export async function verifySnsMessage(
  msg: unknown,
  fetchCert: CertificateFetcher,
  opts: VerifySnsOptions = {},
): Promise<SnsMessage> {
  const message = readFields(msg);
  const certUrl = isTrustedSnsCertUrl(message.SigningCertURL);
  if (!certUrl) throw new SnsVerificationError('untrusted-certificate-url', message.SigningCertURL);
  if (message.Type !== 'Notification' && !isTrustedSnsSubscribeUrl(message.SubscribeURL)) {
    throw new SnsVerificationError('untrusted-subscribe-url', message.SubscribeURL);
  }
  if (message.Signature === '' || !BASE64.test(message.Signature)) {
    throw new SnsVerificationError('malformed', 'Signature is not base64');
  }

  const cache = opts.cache ?? defaultCache;
  const key = certUrl.href;
  let pem = cache.get(key);
  if (pem === undefined) {
    try {
      pem = await fetchCert(certUrl);
    } catch (err) {
      throw new SnsVerificationError('certificate-unavailable', key, { cause: err });
    }
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch (err) {
    cache.delete(key);
    throw new SnsVerificationError('invalid-certificate', key, { cause: err });
  }
  remember(cache, key, pem);
  if (cert.publicKey.asymmetricKeyType !== 'rsa') {
    throw new SnsVerificationError('invalid-certificate', `${key}: not an RSA key`);
  }

  const now = (opts.now ?? new Date()).getTime();
  const validFrom = Date.parse(cert.validFrom);
  const validTo = Date.parse(cert.validTo);
  if (!Number.isFinite(validFrom) || !Number.isFinite(validTo)) {
    throw new SnsVerificationError('invalid-certificate', `${key}: unreadable validity dates`);
  }
  if (now < validFrom) throw new SnsVerificationError('certificate-not-yet-valid', cert.validFrom);
  if (now > validTo) throw new SnsVerificationError('certificate-expired', cert.validTo);

  const verifier = createVerify(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  verifier.update(stringToSign(message), 'utf8');
  let good = false;
  try {
    good = verifier.verify(cert.publicKey, Buffer.from(message.Signature, 'base64'));
  } catch {
    good = false;
  }
  if (!good) throw new SnsVerificationError('bad-signature');
  return message;
}
