// The wrapper's error codes (the core's it shares, with the core's status, and its own from
// @mailsvc/contract), and what it does with each error code the core can answer. Same body as the
// core (DESIGN.md §2): {ok: false, error: {code, message, details?, requestId}}.
import {
  type CoreErrorCode,
  coreErrors,
  type ErrorDetail,
  type ErrorSpec,
  wrapperOnlyErrors,
} from '@mailsvc/contract/errors';

/** A code the wrapper shares with the core: the core's status, the wrapper's wording. */
const shared = <C extends CoreErrorCode>(code: C, description: string) => ({
  status: coreErrors[code].status as (typeof coreErrors)[C]['status'],
  description,
});

export const wrapperErrors = {
  invalid_request: shared('invalid_request', 'The envelope failed validation; `details` lists each problem.'),
  invalid_template_data: shared(
    'invalid_template_data',
    "`data` failed the route template's schema, or a link is not https on MAILSVC_ALLOWED_LINK_HOSTS; `details` lists each field.",
  ),
  invalid_from_name: shared(
    'invalid_from_name',
    '`fromName` (allowed with MAILSVC_ALLOW_SENDER_OVERRIDE=true) has line breaks, control, bidirectional or invisible characters or an email address, or is over 120 characters.',
  ),
  not_found: shared('not_found', 'No such route.'),
  method_not_allowed: shared('method_not_allowed', 'The route exists but not for this method; see `Allow`.'),
  request_timeout: shared(
    'request_timeout',
    'Standalone server: the request (headers and body) did not arrive in time.',
  ),
  payload_too_large: shared('payload_too_large', 'The body is over 256 KiB.'),
  unsupported_media_type: shared(
    'unsupported_media_type',
    'POST bodies must be `Content-Type: application/json`.',
  ),
  headers_too_large: shared(
    'headers_too_large',
    'Standalone server: the request headers are over the HTTP parser limit (16 KiB).',
  ),
  rate_limited: shared(
    'rate_limited',
    'Too many requests from this client or to this recipient; retry after `Retry-After` seconds.',
  ),
  internal: shared('internal', 'An unexpected error; the request id identifies it in the logs.'),
  ...wrapperOnlyErrors,
} as const satisfies Record<string, ErrorSpec>;

export type WrapperErrorCode = keyof typeof wrapperErrors;

/**
 * What the wrapper answers for each core error code (@mailsvc/contract/errors). Typed against the
 * catalogue: a new core code does not compile until it is placed here.
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
  // The wrapper only sends: the message lookup is never called through it.
  message_not_found: 'failed',
  // Nor the keys endpoints.
  key_not_found: 'failed',
  message_not_cancelable: 'failed',
  message_not_scheduled: 'failed',
  suppression_not_found: 'failed',
  suppression_not_removable: 'failed',
  // Nor the webhook endpoints.
  webhook_url_not_allowed: 'failed',
  webhook_endpoint_not_found: 'failed',
  webhook_event_not_found: 'failed',
  webhook_endpoint_limit: 'failed',
  domain_not_found: 'failed',
  domain_already_added: 'failed',
  domain_claimed: 'failed',
  dkim_rotation_conflict: 'failed',
  // Nor the relay event intakes, which are not called with an API key.
  invalid_signature: 'failed',
  sns_topic_not_registered: 'failed',
  // Nor the contacts endpoints.
  contact_not_found: 'failed',
  group_not_found: 'failed',
  job_not_found: 'failed',
  // Nor the dev pages (`mailsvc start`, loopback only).
  cross_site_request: 'failed',
  // Nor the console's own routes.
  session_required: 'failed',
  invalid_sign_in_code: 'failed',
  member_not_found: 'failed',
  member_already_added: 'failed',
  last_owner: 'failed',
  insufficient_role: 'misconfigured',
  template_not_found: 'pass',
  template_version_not_found: 'pass',
  idempotency_key_reused: 'pass',
  payload_too_large: 'pass',
  rate_limited: 'pass',
  missing_api_key: 'misconfigured',
  invalid_api_key: 'misconfigured',
  api_key_revoked: 'misconfigured',
  // The wrapper's key must be able to send the route's template (a send key of that category).
  insufficient_scope: 'misconfigured',
  tenant_not_found: 'misconfigured',
  project_not_found: 'misconfigured',
  environment_not_found: 'misconfigured',
  invalid_admin_token: 'failed',
  not_found: 'failed',
  method_not_allowed: 'failed',
  conflict: 'failed',
  unsupported_media_type: 'failed',
  internal: 'failed',
  service_unavailable: 'failed',
  request_timeout: 'failed',
  headers_too_large: 'failed',
} as const satisfies Record<CoreErrorCode, 'pass' | 'misconfigured' | 'failed'>;

export type CoreErrorHandling = (typeof coreErrorHandling)[keyof typeof coreErrorHandling];

export function handlingOf(code: unknown): CoreErrorHandling {
  return typeof code === 'string' && Object.hasOwn(coreErrorHandling, code)
    ? coreErrorHandling[code as keyof typeof coreErrorHandling]
    : 'failed';
}

export type { ErrorDetail };
