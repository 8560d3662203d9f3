// The core's errors: the catalogue (in @mailsvc/contract, shared with the wrapper and the
// client), ApiError for expected failures, and docs/errors.md generated from the catalogue.

export { coreErrors as errorCatalogue, type ErrorDetail } from '@mailsvc/contract/errors';

import { type Operation, operations } from '@mailsvc/contract/api';
import { type CoreErrorCode, type ErrorDetail, coreErrors as errorCatalogue } from '@mailsvc/contract/errors';
import { messageErrors } from '@mailsvc/contract/message-errors';

export type ErrorCode = CoreErrorCode;

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

/** 429 rate_limited with Retry-After: the seconds until a request is let through again. */
export const retryLater = (message: string, retryAfterSeconds: number) =>
  new ApiError('rate_limited', message, undefined, { 'Retry-After': String(retryAfterSeconds) });

/**
 * Where each code can come from besides the /v1 operations that declare it (@mailsvc/contract/api):
 * the HTTP layer and the admin API. A test checks that every code of the catalogue has a source.
 */
export const OTHER_SOURCES: Partial<Record<ErrorCode, string>> = {
  invalid_request:
    'any request that is not well-formed HTTP or JSON; the admin API; the dev inbox API: a query parameter that is unknown, repeated, empty or malformed',
  not_found: 'any unknown path; the admin API: an unknown record',
  method_not_allowed: 'any known path, another method',
  request_timeout: 'any request that does not arrive in time',
  headers_too_large: 'any request with headers over 16 KiB',
  payload_too_large: 'any POST over 256 KiB',
  unsupported_media_type: 'any POST that is not JSON',
  invalid_admin_token: 'the admin API',
  message_not_found:
    'the dev inbox API: `GET /dev/inbox/api/messages/:id` and `/latest`, `DELETE /dev/inbox/api/messages/:id` (no captured message with this id, or none matches yet)',
  conflict: 'the admin API',
  service_unavailable: 'any request while the database is away; `/readyz`',
  internal: 'any request',
  cross_site_request:
    'the dev pages: `POST /dev/templates/:id/render` and `/send`, `DELETE /dev/inbox/api/messages[/:id]`, from another origin; the console: any `POST /console/api/…` from another origin, or a change without the session’s `X-CSRF-Token`',
  invalid_sign_in_code: 'the console: `POST /console/api/sign-in/verify`',
  session_required: 'the console: every `/console/api/…` route but sign-in',
  member_not_found: 'the console: `POST /console/api/members/update`, `/remove`',
  member_already_added: 'the console: `POST /console/api/members/invite`; `mailsvc admin members invite`',
  last_owner: 'the console: `POST /console/api/members/update`, `/remove`',
  rate_limited:
    'the console: `POST /console/api/sign-in/start` (5 codes per address, 20 per client in 15 minutes), `/verify` (wrong codes count as failed authentications), `/members/invite` (a mailbox 5 times a day per team and 20 in all teams, 50 invitations per team an hour)',
};

/** The operations (by operationId) and other places that can answer a code. */
export function sourcesOf(code: ErrorCode): string[] {
  const ops = (Object.entries(operations) as [string, Operation][])
    .filter(([, op]) => (op.errors ?? []).includes(code))
    .map(([id, op]) => `\`${op.method} ${op.path}\` (${id})`);
  return [...ops, ...(OTHER_SOURCES[code] ? [OTHER_SOURCES[code]] : [])];
}

export function renderErrorsDoc(): string {
  return [
    '# Error codes',
    '',
    'Generated from `packages/contract/src/errors.ts` and the operations of `packages/contract/src/api.ts` by `npm run docs`; do not edit by hand.',
    '',
    'Every error, on every endpoint, has this body and an `X-Request-Id` header:',
    '',
    '```json',
    '{"ok": false, "error": {"code": "invalid_request", "message": "…", "details": [{"path": "/to", "message": "…"}], "requestId": "req_…"}}',
    '```',
    '',
    '`details` is present for validation errors; each `path` is a JSON Pointer into the request body.',
    'The OpenAPI document (`GET /openapi.json`, [openapi.json](openapi.json)) lists, per operation,',
    'the codes it can answer. The template-route wrapper answers the codes it shares with the core',
    'with the same status, and four of its own (packages/wrapper/README.md).',
    '',
    '| status | code | meaning | answered by |',
    '|---|---|---|---|',
    ...Object.entries(errorCatalogue).map(
      ([code, e]) =>
        `| ${e.status} | \`${code}\` | ${e.description} | ${sourcesOf(code as ErrorCode).join('; ')} |`,
    ),
    '',
    '## Message error codes',
    '',
    "A message's `error` (`POST /v1/messages/get`, the `messages` of `POST /v1/recipients/status`) holds",
    'one of these codes, whatever found the failure: the delivery attempt, a DSN, a relay event or',
    'Amazon SES (generated from `packages/contract/src/message-errors.ts`).',
    '',
    '| code | message status | meaning |',
    '|---|---|---|',
    ...Object.entries(messageErrors).map(
      ([code, e]) => `| \`${code}\` | \`${e.status}\` | ${e.description} |`,
    ),
    '',
  ].join('\n');
}
