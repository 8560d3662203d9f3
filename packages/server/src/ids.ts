import { randomBytes, randomFillSync } from 'node:crypto';
import { encodeUlid } from '@mailsvc/contract/http';

export type IdPrefix =
  | 'ten'
  | 'prj'
  | 'env'
  | 'key'
  | 'msg'
  | 'ct'
  | 'job'
  | 'evt'
  | 'dom'
  | 'req'
  | 'frp'
  | 'whs'
  | 'whe'
  | 'wha'
  | 'mem'
  | 'ses'
  | 'sic';

// Random bytes are drawn from a pool refilled 4 KiB at a time: one randomBytes() call per id
// cost more than the rest of an accept's id work (measured in bench/delivery.ts profiles).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function take16(): number {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += 16;
  return at;
}

/** A 26-character ULID: 48 bits of milliseconds, then 80 random bits. */
export function ulid(now: number = Date.now()): string {
  return encodeUlid(now, pool, take16());
}

export function newId(prefix: IdPrefix, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}

export const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from rejection-sampled random bytes (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
