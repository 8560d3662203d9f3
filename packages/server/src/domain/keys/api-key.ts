import { createHash, timingSafeEqual } from 'node:crypto';
import { newId, randomBase62, ULID_PATTERN } from '../../ids.js';

// msk_<ulid>_<secret>: the ulid names the row (key_<ulid>), the secret is only ever hashed.
const SECRET_LENGTH = 43; // ≈ 256 bits of base62
const KEY_PATTERN = new RegExp(`^msk_(${ULID_PATTERN})_([0-9A-Za-z]{${SECRET_LENGTH}})$`);
export const MAX_KEY_LENGTH = 4 + 26 + 1 + SECRET_LENGTH;

export interface NewApiKey {
  id: string;
  token: string;
  secretSha256: Buffer;
  hint: string;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function generateApiKey(now?: number): NewApiKey {
  const id = newId('key', now);
  const secret = randomBase62(SECRET_LENGTH);
  const token = `msk_${id.slice(4)}_${secret}`;
  return { id, token, secretSha256: hashSecret(secret), hint: `msk_${id.slice(4)}_…${secret.slice(-4)}` };
}

export function parseApiKey(token: string): { id: string; secret: string } | null {
  if (token.length !== MAX_KEY_LENGTH) return null;
  const m = KEY_PATTERN.exec(token);
  return m ? { id: `key_${m[1]}`, secret: m[2]! } : null;
}

export function secretMatches(secret: string, expected: Buffer): boolean {
  const actual = hashSecret(secret);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
