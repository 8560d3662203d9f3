// Unsubscribe tokens: the capability to unsubscribe one address from one environment's
// notifications. Stateless, so a link keeps working after the message's metadata is deleted.
//
// Format v1 — `v1.` + base64url(IV ‖ AES-256-GCM(environment \n address \n scope) ‖ tag): opaque
// (link scanners, proxies and access logs that see the URL learn nothing about the recipient) and
// authenticated (a token cannot be forged, altered, or moved to another address or environment).
// The key is derived from the service's unsubscribe key.
//
// The format before it (base64url(payload) `.` HMAC-SHA256) carried the address readably; tokens
// of that format already in inboxes keep working. Both are accepted only in their canonical
// spelling: base64url decoding is lenient (padding, unused low bits of the last character), and
// one token must have one spelling.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SUBSCRIPTION_SCOPE = 'app_notifications';
export type SubscriptionScope = typeof SUBSCRIPTION_SCOPE;

export interface UnsubscribeTarget {
  environmentId: string;
  email: string;
  scope: SubscriptionScope;
}

const V1 = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('mailsvc unsubscribe token v1');
const MAX_TOKEN_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const hmac = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** The AES key of v1, derived from the unsubscribe key (never the same bytes for two purposes). */
const aeadKey = (key: Buffer) => hmac(key, 'mailsvc unsubscribe token v1 aes-256-gcm');

const payloadOf = (t: UnsubscribeTarget) => `${t.environmentId}\n${t.email}\n${t.scope}`;

/** The bytes of a canonical base64url string; null for any other spelling. */
function decodeCanonical(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

function targetOf(payload: string): UnsubscribeTarget | null {
  const [environmentId, email, scope, ...rest] = payload.split('\n');
  if (!environmentId || !email || scope !== SUBSCRIPTION_SCOPE || rest.length > 0) return null;
  return { environmentId, email, scope };
}

/**
 * SpamAssassin's __BITCOIN_ID body rule (72_active.cf; PDS_BTC_ID scores it): a word of 30 to 35
 * base58 characters starting with 1 or 3. Random base64url text matches it now and then, and the
 * unsubscribe link stands as text in every notification's plain-text part.
 */
export const LOOKS_LIKE_BITCOIN_ID =
  /\b(?<!=)(?:[13](?:(?:[-_=\s][a-km-zA-HJ-NP-Z1-9]){29,34}|[a-km-zA-HJ-NP-Z1-9]{29,34})|bc1[acdefghjklmnpqrstuvwxyz234567890]{30,90}|b[-_=\s]c[-_=\s]1(?:[-_=\s][acdefghjklmnpqrstuvwxyz234567890]){30,90})\b/;

export function createUnsubscribeToken(key: Buffer, target: UnsubscribeTarget): string {
  // A token that reads as a Bitcoin address to a spam filter is sealed again with a new IV (about
  // one in 5,000): the same capability, and no point against the mail that carries it (the
  // quality suite's SpamAssassin run caught one).
  for (;;) {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', aeadKey(key), iv);
    cipher.setAAD(AAD);
    const sealed = Buffer.concat([cipher.update(payloadOf(target), 'utf8'), cipher.final()]);
    const token = `${V1}${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
    if (!LOOKS_LIKE_BITCOIN_ID.test(token)) return token;
  }
}

/** The target of a genuine token of either format, in its canonical spelling; null otherwise. */
export function verifyUnsubscribeToken(key: Buffer, token: string): UnsubscribeTarget | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  return token.startsWith(V1) ? openV1(key, token.slice(V1.length)) : verifyLegacy(key, token);
}

function openV1(key: Buffer, body: string): UnsubscribeTarget | null {
  const bytes = decodeCanonical(body);
  if (!bytes || bytes.length <= IV_BYTES + TAG_BYTES) return null;
  const decipher = createDecipheriv('aes-256-gcm', aeadKey(key), bytes.subarray(0, IV_BYTES));
  decipher.setAAD(AAD);
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return targetOf(plain.toString('utf8'));
  } catch {
    return null; // the tag did not verify
  }
}

/** The format before v1: base64url(payload) `.` base64url(HMAC-SHA256(payload)). */
function verifyLegacy(key: Buffer, token: string): UnsubscribeTarget | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const payload = decodeCanonical(parts[0]!);
  const given = decodeCanonical(parts[1]!);
  if (!payload || !given || given.length !== 32) return null;
  const text = payload.toString('utf8');
  if (!timingSafeEqual(given, hmac(key, text))) return null;
  return targetOf(text);
}
