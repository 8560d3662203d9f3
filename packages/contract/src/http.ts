// HTTP rules of the core and the wrapper that clients need too. Browser-safe.

/** Request bodies, core and wrapper (DESIGN.md §2): 413 payload_too_large above. */
export const BODY_LIMIT = 256 * 1024;

/** The Idempotency-Key header (and the wrapper's `idempotencyKey`): 1–120 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,120}$';
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && IDEMPOTENCY_KEY.test(value);
}

// Crockford base32, as ULID uses: ids sort by creation time as plain strings.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A 26-character ULID: 48 bits of milliseconds, then 80 random bits read from 16 random bytes
 * of `random` at `offset` (one byte per character, modulo 32).
 */
export function encodeUlid(now: number, random: Uint8Array, offset = 0): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rest = '';
  for (let i = 0; i < 16; i++) rest += ALPHABET[random[offset + i]! % 32];
  return time + rest;
}

/** The milliseconds a ULID's first 10 characters hold (its time). */
export function ulidTime(ulid: string): number {
  let ms = 0;
  for (let i = 0; i < 10; i++) ms = ms * 32 + ALPHABET.indexOf(ulid[i]!);
  return ms;
}

/** `req_` + a ULID, as every answer carries. */
export function newRequestId(now: number = Date.now()): string {
  return `req_${encodeUlid(now, globalThis.crypto.getRandomValues(new Uint8Array(16)))}`;
}

export const REQUEST_ID_PATTERN = '^req_[0-9A-HJKMNP-TV-Z]{26}$';
