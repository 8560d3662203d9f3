// The closed catalogue of error codes (DESIGN.md §2): the seed's codes plus DESIGN.md's
// extensions, each with its HTTP status. The core answers these; the wrapper answers the codes it
// shares with the core (with the core's status) plus its own (wrapperOnlyErrors). docs/errors.md
// and the OpenAPI documents are generated from here. Browser-safe: the client uses it.
import { type Static, Type } from '@sinclair/typebox';

export interface ErrorSpec {
  status: number;
  description: string;
}

export const coreErrors = {
  invalid_request: {
    status: 400,
    description: 'The request failed validation; `details` lists each problem.',
  },
  invalid_template_data: {
    status: 400,
    description: 'Template data failed the template schema; `details` lists each field.',
  },
  invalid_sign_in_code: {
    status: 400,
    description:
      '(console) The sign-in code is wrong, expired (10 minutes), already used, or locked after 5 wrong tries; ask for a new code.',
  },
  invalid_from_address: { status: 400, description: '`from` is not a valid address.' },
  invalid_from_name: {
    status: 400,
    description:
      '`fromName` is over 120 characters, or contains line breaks, control, bidirectional or invisible characters or an email address.',
  },
  invalid_reply_to: { status: 400, description: '`replyTo` is not a valid address.' },
  missing_api_key: { status: 401, description: 'No `Authorization: Bearer <API key>` header.' },
  invalid_api_key: { status: 401, description: 'The API key is malformed, unknown or wrong.' },
  session_required: {
    status: 401,
    description:
      '(console) Not signed in: no session cookie, or the session expired (12 h idle, 7 days in all), was signed out or revoked, or its member was removed.',
  },
  invalid_admin_token: { status: 401, description: 'The admin bearer token is missing or wrong.' },
  invalid_signature: {
    status: 401,
    description:
      'A relay event (POST /v1/events/intake, /v1/events/ses) is unsigned, wrongly signed, signed with no current secret of its environment, or outside the 5-minute timestamp tolerance.',
  },
  trial_expired: { status: 402, description: "The tenant's trial has ended." },
  api_key_revoked: { status: 403, description: 'The API key was revoked.' },
  insufficient_scope: {
    status: 403,
    description:
      "The API key's scope does not allow this operation (a send key: POST /v1/send, the batch and GET /v1/quota only), or a send key limited to template categories was used for another category.",
  },
  insufficient_role: {
    status: 403,
    description:
      "(console) The signed-in member's role in the tenant does not allow this operation or console action (docs/console.md lists what each role may do), or the member is limited to other projects.",
  },
  suppression_not_removable: {
    status: 403,
    description:
      'POST /v1/suppressions/remove: a complaint is cleared only by the operator, an unsubscribe only by the recipient’s opt-in (POST /v1/recipients/resubscribe); nothing changed.',
  },
  webhook_url_not_allowed: {
    status: 400,
    description:
      'POST /v1/webhooks/create, update: the URL is not one events may go to (not https, user info, or a host that is or resolves to a loopback, private, link-local or other non-public address); the error names why. An operator can allow http and private addresses (MAILSVC_WEBHOOK_ALLOW_PRIVATE=true).',
  },
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
    description:
      'The recipient is in hard-bounce cooldown or suppressed, or the app suppressed it (POST /v1/suppressions/add).',
  },
  sns_topic_not_registered: {
    status: 403,
    description:
      'An Amazon SNS message from a topic no environment registered (mailsvc admin events add-ses-topic).',
  },
  sending_domain_not_ready: { status: 403, description: 'The configured sending domain is not verified.' },
  from_domain_not_allowed: { status: 403, description: '`from` is not on the sending domain.' },
  cross_site_request: {
    status: 403,
    description:
      '(dev pages) A POST or DELETE to /dev/… came from a page of another origin (`Origin` or `Sec-Fetch-Site`); nothing was rendered, sent or deleted.',
  },
  not_found: { status: 404, description: 'No such path, or (admin API) no such record.' },
  project_not_found: {
    status: 404,
    description: "The key's project no longer exists, or (dev pages) no project has this id.",
  },
  environment_not_found: {
    status: 404,
    description:
      "The key's environment no longer exists, or (dev pages) the project has no environment with an API key to send from.",
  },
  contact_not_found: {
    status: 404,
    description:
      'A contact id or email named in the request is not a contact of the tenant; nothing changed.',
  },
  group_not_found: { status: 404, description: 'No contact group with this slug in the tenant.' },
  job_not_found: { status: 404, description: 'No bulk send with this id in the key’s environment.' },
  message_not_found: {
    status: 404,
    description: 'No message with this id in the key’s environment.',
  },
  key_not_found: { status: 404, description: 'No API key with this id in the key’s environment.' },
  suppression_not_found: {
    status: 404,
    description:
      'POST /v1/suppressions/remove: the address has no manual or hard-bounce suppression (of the reason named) in the key’s environment.',
  },
  domain_not_found: {
    status: 404,
    description:
      'No sending domain with this id that the key’s environment can use (its own, its project’s or its tenant’s).',
  },
  webhook_endpoint_not_found: {
    status: 404,
    description: 'No webhook endpoint with this id in the key’s environment.',
  },
  webhook_event_not_found: {
    status: 404,
    description:
      'POST /v1/webhooks/deliveries/replay: no event with this id was sent to an endpoint of the key’s environment.',
  },
  member_not_found: {
    status: 404,
    description: '(console) No live member with this id in the tenant (or the tenant is not one of yours).',
  },
  template_not_found: { status: 404, description: 'No template with this id.' },
  template_version_not_found: {
    status: 404,
    description: 'The template has no published version by that name.',
  },
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
  message_not_cancelable: {
    status: 409,
    description:
      'POST /v1/messages/cancel: the message is neither `scheduled` nor `queued` (a worker has it, or it ended); the message and `details` name its status. Nothing changed.',
  },
  message_not_scheduled: {
    status: 409,
    description:
      'POST /v1/messages/reschedule: the message is not `scheduled` (it fell due, was canceled, or was never scheduled); the message and `details` name its status. Nothing changed.',
  },
  domain_already_added: {
    status: 409,
    description:
      'POST /v1/domains/add: the tenant has added this domain already, or the scope (environment, project or tenant) has a sending domain; the message names it.',
  },
  domain_claimed: {
    status: 409,
    description:
      'POST /v1/domains/add: another tenant has verified this domain; one tenant at a time may send from a domain (a pending claim blocks no one).',
  },
  dkim_rotation_conflict: {
    status: 409,
    description:
      'POST /v1/domains/rotate-dkim: the domain is not verified (or degraded), a rotation is already waiting for its new record to be published, or the last rotation’s retiring key is still in its 7 days; nothing changed.',
  },
  webhook_endpoint_limit: {
    status: 409,
    description:
      'POST /v1/webhooks/create: the environment has 20 webhook endpoints already; delete one first.',
  },
  member_already_added: {
    status: 409,
    description: '(console) The address is a member of the tenant already; change its role instead.',
  },
  last_owner: {
    status: 409,
    description:
      '(console) The change would leave the tenant without an owner; make another member owner first.',
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

export type CoreErrorCode = keyof typeof coreErrors;

/** Codes only the wrapper answers (DESIGN.md §8). */
export const wrapperOnlyErrors = {
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
  send_failed: {
    status: 500,
    description:
      'The core API could not be reached, timed out, failed, or refused the server-held key. With `Retry-After` (the core was unreachable or unavailable and the request carried an `idempotencyKey`), retry after it with the same key; without it, a retry will not help.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type WrapperOnlyErrorCode = keyof typeof wrapperOnlyErrors;

/** One problem of a request, as `details` lists it: a JSON Pointer into the body and a phrase. */
export const ErrorDetail = Type.Object(
  { path: Type.String({ description: 'JSON Pointer into the request body' }), message: Type.String() },
  { additionalProperties: false },
);
export type ErrorDetail = Static<typeof ErrorDetail>;

/**
 * At most this many problems are listed in `details`, core and wrapper alike: an answer's size and
 * cost must not grow with the input. The message says how many were left out.
 */
export const MAX_ERROR_DETAILS = 20;

/** `details` cut to MAX_ERROR_DETAILS, the message then saying how many problems there were. */
export function capErrorDetails(
  message: string,
  details: ErrorDetail[] | undefined,
): { message: string; details: ErrorDetail[] | undefined } {
  if (!details || details.length <= MAX_ERROR_DETAILS) return { message, details };
  const more = details.length - MAX_ERROR_DETAILS;
  return {
    message: `${message} ${details.length.toLocaleString('en-US')} problems: \`details\` lists the first ${MAX_ERROR_DETAILS}, and ${more.toLocaleString('en-US')} more.`,
    details: details.slice(0, MAX_ERROR_DETAILS),
  };
}

/** The body of every error answer of the core and the wrapper. */
export const ErrorBody = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.Object(
      {
        code: Type.String({ description: 'a code of the error catalogue' }),
        message: Type.String({ description: 'a sentence for people; do not parse it' }),
        details: Type.Optional(
          Type.Array(ErrorDetail, {
            maxItems: MAX_ERROR_DETAILS,
            description: `each problem, at most ${MAX_ERROR_DETAILS} (the message says how many more there were)`,
          }),
        ),
        requestId: Type.String({ pattern: '^req_[0-9A-HJKMNP-TV-Z]{26}$' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ErrorBody = Static<typeof ErrorBody>;
