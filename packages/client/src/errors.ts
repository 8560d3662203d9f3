import type { CoreErrorCode, ErrorDetail, WrapperOnlyErrorCode } from './generated/core.js';

/**
 * Codes the client gives when no server answered with one:
 * - `network_error`: the request could not be sent or its answer was cut off (status 0);
 * - `timeout`: no answer within `timeoutMs` (status 0);
 * - `invalid_response`: an answer that is not the API's JSON (a proxy's error page, say).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'invalid_response';

export type MailsvcErrorCode = CoreErrorCode | WrapperOnlyErrorCode | ClientErrorCode;

export interface MailsvcErrorInit<C extends string> {
  code: C;
  message: string;
  status: number;
  requestId?: string | undefined;
  details?: ErrorDetail[] | undefined;
  retryAfter?: number | undefined;
  attempts: number;
  idempotencyKey?: string | undefined;
  cause?: unknown;
}

/**
 * Every failure of a client call: the server's error answer (`code`, `status`, `message`,
 * `requestId`, `details` as the API sent them) or a client-side one (`ClientErrorCode`).
 * Narrow by code with `err.is('rate_limited')` or `isMailsvcError(err, 'rate_limited')`.
 */
export class MailsvcError<C extends string = MailsvcErrorCode> extends Error {
  override readonly name = 'MailsvcError';
  /** A code of the error catalogue (docs/errors.md), or a ClientErrorCode. */
  readonly code: C;
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The `req_…` id of the answer, for the server's logs; absent when no answer arrived. */
  readonly requestId: string | undefined;
  /** One entry per problem (JSON Pointer and phrase) for validation errors; otherwise empty. */
  readonly details: ErrorDetail[];
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;
  /** How many requests were made, retries included. */
  readonly attempts: number;
  /**
   * The Idempotency-Key the send carried (the client's own when you gave none). After a timeout
   * or a network error the message may have been accepted: send again with this key to be sure
   * without sending twice.
   */
  readonly idempotencyKey: string | undefined;

  constructor(init: MailsvcErrorInit<C>) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts;
    this.idempotencyKey = init.idempotencyKey;
  }

  /** True when this error has one of these codes (of the catalogue or the client's); narrows `code`. */
  is<K extends MailsvcErrorCode>(...codes: K[]): this is this & { readonly code: K } {
    return (codes as string[]).includes(this.code);
  }
}

/** True when `err` is a MailsvcError (with one of `codes`, when given); narrows `code`. */
export function isMailsvcError<K extends MailsvcErrorCode = MailsvcErrorCode>(
  err: unknown,
  ...codes: K[]
): err is MailsvcError<K> {
  return err instanceof MailsvcError && (codes.length === 0 || (codes as string[]).includes(err.code));
}
