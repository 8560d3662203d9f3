// The closed catalogue of error codes: the seed's codes plus DESIGN.md's extensions.
// docs/errors.md is generated from this table and a test keeps them in sync.

export const errorCatalogue = {
  invalid_request: {
    status: 400,
    description: 'The request failed validation; `details` lists each problem.',
  },
  invalid_template_data: {
    status: 400,
    description: 'Template data failed the template schema; `details` lists each field.',
  },
  invalid_from_address: { status: 400, description: '`from` is not a valid address.' },
  invalid_from_name: {
    status: 400,
    description: '`fromName` is over 120 characters or contains control characters.',
  },
  invalid_reply_to: { status: 400, description: '`replyTo` is not a valid address.' },
  missing_api_key: { status: 401, description: 'No `Authorization: Bearer <API key>` header.' },
  invalid_api_key: { status: 401, description: 'The API key is malformed, unknown or wrong.' },
  invalid_admin_token: { status: 401, description: 'The admin bearer token is missing or wrong.' },
  trial_expired: { status: 402, description: "The tenant's trial has ended." },
  api_key_revoked: { status: 403, description: 'The API key was revoked.' },
  tenant_not_found: { status: 403, description: "The key's tenant no longer exists." },
  project_inactive: { status: 403, description: "The key's project is inactive." },
  environment_inactive: { status: 403, description: "The key's environment is inactive." },
  monthly_quota_exceeded: {
    status: 403,
    description: 'The tenant used its monthly quota and its plan allows no overage.',
  },
  app_paused: { status: 403, description: 'Sending is paused for the environment.' },
  app_blocked: { status: 403, description: 'Sending is blocked for the environment.' },
  recipient_complained: { status: 403, description: 'The recipient complained; every template is refused.' },
  recipient_unsubscribed: {
    status: 403,
    description: 'The recipient unsubscribed from notification templates.',
  },
  recipient_suppressed: {
    status: 403,
    description: 'The recipient is in hard-bounce cooldown or suppressed.',
  },
  sending_domain_not_ready: { status: 403, description: 'The configured sending domain is not verified.' },
  from_domain_not_allowed: { status: 403, description: '`from` is not on the sending domain.' },
  not_found: { status: 404, description: 'No such path, or (admin API) no such record.' },
  project_not_found: { status: 404, description: "The key's project no longer exists." },
  environment_not_found: { status: 404, description: "The key's environment no longer exists." },
  template_not_found: { status: 404, description: 'No template with this id.' },
  template_version_not_found: {
    status: 404,
    description: 'The template has no published version by that name.',
  },
  contact_not_found: { status: 404, description: 'No contact with this id or email.' },
  group_not_found: { status: 404, description: 'No group with this slug.' },
  method_not_allowed: {
    status: 405,
    description: 'The path exists but not for this method; see the `Allow` header.',
  },
  request_timeout: {
    status: 408,
    description: 'The request (headers and body) did not arrive in time; the connection is closed.',
  },
  conflict: { status: 409, description: '(admin API) The record already exists.' },
  idempotency_key_reused: {
    status: 409,
    description: 'The Idempotency-Key was used with a different request.',
  },
  payload_too_large: { status: 413, description: 'The body is over 256 KiB.' },
  unsupported_media_type: {
    status: 415,
    description: 'POST bodies must be `Content-Type: application/json`.',
  },
  rate_limited: {
    status: 429,
    description:
      "Over the API key's rate limit, or too many failed authentications from this client; retry after `Retry-After` seconds.",
  },
  headers_too_large: {
    status: 431,
    description: 'The request headers are over 16 KiB.',
  },
  internal: {
    status: 500,
    description: 'An unexpected server error; the request id identifies it in the logs.',
  },
  service_unavailable: {
    status: 503,
    description:
      'The service is starting, stopping or cannot reach its database; retry after `Retry-After` seconds, with the same Idempotency-Key for a send.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export const statusOf = Object.fromEntries(
  Object.entries(errorCatalogue).map(([code, e]) => [code, e.status]),
) as Record<ErrorCode, number> satisfies Record<ErrorCode, number>;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An expected failure, answered with its catalogue status and this message. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = errorCatalogue[code].status;
  }
}

export function renderErrorsDoc(): string {
  return [
    '# Error codes',
    '',
    'Generated from `packages/server/src/errors.ts` by `npm run docs`; do not edit by hand.',
    '',
    'Every error, on every endpoint, has this body and an `X-Request-Id` header:',
    '',
    '```json',
    '{"ok": false, "error": {"code": "invalid_request", "message": "…", "details": [{"path": "/to", "message": "…"}], "requestId": "req_…"}}',
    '```',
    '',
    '`details` is present for validation errors; each `path` is a JSON Pointer into the request body.',
    '',
    '| status | code | meaning |',
    '|---|---|---|',
    ...Object.entries(errorCatalogue).map(([code, e]) => `| ${e.status} | \`${code}\` | ${e.description} |`),
    '',
  ].join('\n');
}
