// The one check of a request's media type: the API's POST routes (auth-hook.ts, `jsonBody`) and
// the dev pages' POST and DELETE routes take JSON only. A form on another site cannot send
// Content-Type: application/json without a CORS preflight, so none can post to them.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

export interface JsonBodyRule {
  /** A request without Content-Type passes (routes that take no body); else it is refused. */
  isBodyOptional?: boolean;
  /** The sentence of the 415; by default, how to send the body. */
  message?: string;
}

/** Whether a Content-Type header names application/json (any parameters, any case). */
export function isJsonContentType(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Throws 415 unsupported_media_type unless the Content-Type is JSON (or absent, when optional). */
export function requireJsonContentType(header: string | undefined, rule: JsonBodyRule = {}): void {
  if (header === undefined && rule.isBodyOptional) return;
  if (!isJsonContentType(header)) {
    throw new ApiError(
      'unsupported_media_type',
      rule.message ?? 'Send the body as Content-Type: application/json.',
    );
  }
}

/** The check as an onRequest hook (before the body is read). */
export function jsonBodyGuard(rule: JsonBodyRule = {}) {
  return async (req: FastifyRequest) => requireJsonContentType(req.headers['content-type'], rule);
}
