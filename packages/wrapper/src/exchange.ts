// One request through the router: what every step reads (request id, method, path, the Origin
// verdict) and writes (the fields of the request's log line), and the answers a step can give,
// each with the request id, no-store and the CORS headers of the request's origin.
import { capErrorDetails } from '@mailsvc/contract/errors';
import { newRequestId } from '@mailsvc/contract/http';
import { checkOrigin, corsHeaders, type OriginCheck } from './cors.js';
import { type ErrorDetail, type WrapperErrorCode, wrapperErrors } from './errors.js';
import type { WrapperRequest, WrapperResponse } from './router.js';

export interface Exchange {
  req: WrapperRequest;
  started: number;
  requestId: string;
  /** Uppercase. */
  method: string;
  /** The route path: no query, no emulator prefix, no trailing slash. */
  path: string;
  origin: OriginCheck;
  /** The fields of the request's log line, filled in as the steps learn them. */
  logFields: Record<string, unknown>;
}

export function openExchange(
  req: WrapperRequest,
  started: number,
  path: string,
  allowedOrigins: readonly string[],
): Exchange {
  const requestId = newRequestId(started);
  const method = req.method.toUpperCase();
  const origin = checkOrigin(headerOf(req, 'origin'), allowedOrigins);
  return { req, started, requestId, method, path, origin, logFields: { requestId, method, path } };
}

/** A request header by its lowercase name, repeated values joined as HTTP does. */
export function headerOf(req: WrapperRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function respond(
  x: Exchange,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): WrapperResponse {
  return {
    status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Request-Id': x.requestId,
      'Cache-Control': 'no-store',
      ...corsHeaders(x.origin),
      ...extra,
    },
    body: JSON.stringify(body),
  };
}

/** The error envelope (DESIGN.md §2) with any code and status: the wrapper's own or the core's. */
export function fail(
  x: Exchange,
  code: WrapperErrorCode | string,
  status: number,
  message: string,
  details?: ErrorDetail[],
  extra?: Record<string, string>,
): WrapperResponse {
  x.logFields.code = code;
  const capped = capErrorDetails(message, details);
  const error: Record<string, unknown> = { code, message: capped.message };
  if (capped.details && capped.details.length > 0) error.details = capped.details;
  error.requestId = x.requestId;
  return respond(x, status, { ok: false, error }, extra);
}

/** One of the wrapper's own error codes, with its catalogue status. */
export function refuse(
  x: Exchange,
  code: WrapperErrorCode,
  message: string,
  details?: ErrorDetail[],
  extra?: Record<string, string>,
): WrapperResponse {
  return fail(x, code, wrapperErrors[code].status, message, details, extra);
}

/**
 * 500 send_failed (DESIGN.md §8). With `retryAfter` (the core unreachable, timed out or
 * unavailable) and an idempotencyKey in the request, the answer carries Retry-After: the
 * caller may retry with the same key, which cannot send twice. Without a key it does not
 * (a timed-out send may have been accepted, and a retry could send it again).
 */
export function sendFailed(x: Exchange, retryAfter?: string, hasIdempotencyKey = false): WrapperResponse {
  const isRetryable = retryAfter !== undefined && hasIdempotencyKey;
  return fail(
    x,
    'send_failed',
    500,
    'The email could not be sent. Quote the requestId when reporting it.',
    undefined,
    isRetryable ? { 'Retry-After': retryAfter } : undefined,
  );
}
