// The core's errors: the catalogue (in @mailsvc/contract, shared with the wrapper and the
// client), ApiError for expected failures, and docs/errors.md generated from the catalogue.

export { coreErrors as errorCatalogue, type ErrorDetail } from '@mailsvc/contract/errors';

import { type CoreErrorCode, type ErrorDetail, coreErrors as errorCatalogue } from '@mailsvc/contract/errors';

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

export function renderErrorsDoc(): string {
  return [
    '# Error codes',
    '',
    'Generated from `packages/contract/src/errors.ts` by `npm run docs`; do not edit by hand.',
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
