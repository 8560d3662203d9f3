import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth: the same request in any key order is equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestDigest(value: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(value)).digest();
}
