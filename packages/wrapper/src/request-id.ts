import { randomBytes } from 'node:crypto';

// Crockford base32, the core's request id shape (req_ + a 26-character ULID).
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newRequestId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += ALPHABET[bytes[i]! % 32];
  return `req_${time}${random}`;
}
