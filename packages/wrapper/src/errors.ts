// The wrapper's own error codes, and what it does with each error code the core can answer.
// Same body as the core (DESIGN.md §2): {ok: false, error: {code, message, details?, requestId}}.

export const wrapperErrors = {
  invalid_request: {
    status: 400,
    description: 'The envelope failed validation; `details` lists each problem.',
  },
  invalid_template_data: {
    status: 400,
    description:
      "`data` failed the route template's schema, or a link is not https on MAILSVC_ALLOWED_LINK_HOSTS; `details` lists each field.",
  },
  invalid_from_name: {
    status: 400,
    description:
      '`fromName` (allowed with MAILSVC_ALLOW_SENDER_OVERRIDE=true) has line breaks, control, bidirectional or invisible characters, or is over 120 characters.',
  },
  app_check_required: {
    status: 401,
    description: 'App Check is required and the `X-Firebase-AppCheck` header is missing.',
  },
  app_check_invalid: {
    status: 401,
    description: 'The App Check token is invalid, expired, for another project or already used.',
  },
  origin_not_allowed: {
    status: 403,
    description: 'The `Origin` header is not in MAILSVC_ALLOWED_ORIGINS; nothing was sent.',
  },
  not_found: { status: 404, description: 'No such route.' },
  method_not_allowed: { status: 405, description: 'The route exists but not for this method; see `Allow`.' },
  request_timeout: {
    status: 408,
    description: 'Standalone server: the request (headers and body) did not arrive in time.',
  },
  payload_too_large: { status: 413, description: 'The body is over 256 KiB.' },
  unsupported_media_type: {
    status: 415,
    description: 'POST bodies must be `Content-Type: application/json`.',
  },
  headers_too_large: {
    status: 431,
    description: 'Standalone server: the request headers are over the HTTP parser limit (16 KiB).',
  },
  rate_limited: {
    status: 429,
    description:
      'Too many requests from this client or to this recipient; retry after `Retry-After` seconds.',
  },
  send_failed: {
    status: 500,
    description:
      'The core API could not be reached, timed out, failed, or refused the server-held key; nothing can be retried by the caller except later.',
  },
  internal: { status: 500, description: 'An unexpected error; the request id identifies it in the logs.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type WrapperErrorCode = keyof typeof wrapperErrors;

/**
 * What the wrapper answers for each core error code (packages/server/src/errors.ts; a test keeps
 * this table complete):
 * - `pass`: caused by the caller's request or the recipient's state: same status, same code.
 * - `misconfigured`: the server-held key or its scope is wrong: 500 send_failed, logged as an error.
 * - `failed`: cannot happen for a valid forwarded request, or is the core's own failure: 500 send_failed.
 * A code the table does not know (a newer core) is treated as `failed`.
 */
export const coreErrorHandling = {
  invalid_request: 'pass',
  invalid_template_data: 'pass',
  invalid_from_address: 'pass',
  invalid_from_name: 'pass',
  invalid_reply_to: 'pass',
  trial_expired: 'pass',
  project_inactive: 'pass',
  environment_inactive: 'pass',
  monthly_quota_exceeded: 'pass',
  app_paused: 'pass',
  app_blocked: 'pass',
  recipient_complained: 'pass',
  recipient_unsubscribed: 'pass',
  recipient_suppressed: 'pass',
  sending_domain_not_ready: 'pass',
  from_domain_not_allowed: 'pass',
  template_not_found: 'pass',
  template_version_not_found: 'pass',
  idempotency_key_reused: 'pass',
  payload_too_large: 'pass',
  rate_limited: 'pass',
  missing_api_key: 'misconfigured',
  invalid_api_key: 'misconfigured',
  api_key_revoked: 'misconfigured',
  tenant_not_found: 'misconfigured',
  project_not_found: 'misconfigured',
  environment_not_found: 'misconfigured',
  invalid_admin_token: 'failed',
  not_found: 'failed',
  contact_not_found: 'failed',
  group_not_found: 'failed',
  method_not_allowed: 'failed',
  conflict: 'failed',
  unsupported_media_type: 'failed',
  internal: 'failed',
  service_unavailable: 'failed',
  request_timeout: 'failed',
  headers_too_large: 'failed',
} as const satisfies Record<string, 'pass' | 'misconfigured' | 'failed'>;

export type CoreErrorHandling = (typeof coreErrorHandling)[keyof typeof coreErrorHandling];

export function handlingOf(code: unknown): CoreErrorHandling {
  return typeof code === 'string' && Object.hasOwn(coreErrorHandling, code)
    ? coreErrorHandling[code as keyof typeof coreErrorHandling]
    : 'failed';
}

export interface ErrorDetail {
  path: string;
  message: string;
}
