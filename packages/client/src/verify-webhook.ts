// Verifying mailsvc's webhooks (Standard Webhooks): the signature over `id.timestamp.body` with the
// endpoint's secret, any of the space-separated signatures (two during a secret's rotation), a
// timestamp within 5 minutes (an old request replayed is refused; within the window, de-duplicate
// on webhook-id), then the body parsed into the typed event union. WebCrypto only: Node 20+,
// browsers' workers, Deno, Cloudflare Workers.
import type { WebhookEvent } from './generated/core.js';

/** How far a webhook's timestamp may be from the clock, either way. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string {
  const value =
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(name: string): string | null }).get(name)
      : ((headers as Record<string, string | string[] | undefined>)[name] ??
        Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]);
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || text === '') throw new WebhookVerificationError(`missing ${name} header`);
  return text;
}

const fromBase64 = (text: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/**
 * Checks a webhook request and returns its event. `body`: the raw body exactly as received (a
 * string or bytes — not a parsed and re-serialised object); `headers`: the request's headers (a
 * plain object or a Fetch `Headers`); `secret`: the endpoint's `whsec_…`. Throws
 * WebhookVerificationError when anything does not match. `now` (ms) is for tests.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: Headers,
  secret: string,
  now: number = Date.now(),
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds))
    throw new WebhookVerificationError('invalid webhook-timestamp');
  if (Math.abs(now / 1000 - seconds) > WEBHOOK_TOLERANCE_SECONDS)
    throw new WebhookVerificationError('webhook-timestamp is too far from now');
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey(
      'raw',
      fromBase64(secret.replace(/^whsec_/, '')),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['verify'],
    );
  } catch {
    throw new WebhookVerificationError('the secret is not a whsec_ secret');
  }
  // The bytes as received are what was signed (decoding first would drop a BOM or mend bad UTF-8).
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    let mac: Uint8Array<ArrayBuffer>;
    try {
      mac = fromBase64(value);
    } catch {
      continue;
    }
    // subtle.verify compares in constant time
    if (await crypto.subtle.verify('HMAC', key, mac, signed)) {
      try {
        return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError('the body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('no signature matches');
}
