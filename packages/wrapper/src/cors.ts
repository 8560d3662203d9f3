// CORS by exact origin. Checked by the router itself, first, so the Firebase function and the
// standalone server behave the same (firebase-functions' `cors` option is not used).

export const ALLOWED_REQUEST_HEADERS = 'Content-Type, X-Firebase-AppCheck';
export const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, RateLimit, RateLimit-Policy';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export type OriginCheck =
  | { kind: 'none' } // no Origin header: a server, curl, or a same-origin GET
  | { kind: 'allowed'; origin: string }
  | { kind: 'refused'; origin: string };

/**
 * Exact string comparison with the configured origins. `null` (sandboxed frames, file:) and
 * look-alikes such as https://app.example.com.evil.example never match.
 */
export function checkOrigin(header: string | undefined, allowed: readonly string[]): OriginCheck {
  if (header === undefined) return { kind: 'none' };
  return allowed.includes(header) ? { kind: 'allowed', origin: header } : { kind: 'refused', origin: header };
}

/** Headers for an actual response to an allowed origin. Vary: Origin always, for caches. */
export function corsHeaders(check: OriginCheck): Record<string, string> {
  if (check.kind !== 'allowed') return { Vary: 'Origin' };
  return {
    Vary: 'Origin',
    'Access-Control-Allow-Origin': check.origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
  };
}

export function preflightHeaders(origin: string, methods: string): Record<string, string> {
  return {
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': methods,
    'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
