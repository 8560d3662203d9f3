// One request with retries, over the platform's fetch (Node 20+, browsers, Deno, Workers): no
// Node-only API here. Retries 429 (after Retry-After), 502/503/504 and network failures and
// timeouts, with exponential backoff and jitter; every other answer is final.
import { type ClientErrorCode, MailsvcError, type MailsvcErrorCode } from './errors.js';
import type { ErrorDetail } from './generated/core.js';

export interface RetryEvent {
  /** The attempt that failed (1 for the first request). */
  attempt: number;
  /** How long the client waits before the next attempt, in milliseconds. */
  delayMs: number;
  /** The failure: its code is the server's, or network_error / timeout / invalid_response. */
  error: MailsvcError;
  /** The Idempotency-Key every attempt of this send carries (absent for reads). */
  idempotencyKey: string | undefined;
}

export interface ClientOptions {
  /** Where the API answers, e.g. `http://127.0.0.1:3000` or `https://mail.example.com`. */
  baseUrl: string;
  /** Retries after the first attempt (default 2); 0 turns retrying off. */
  maxRetries?: number;
  /** Per attempt, from sending the request to the end of the answer (default 30,000 ms; Infinity: none). */
  timeoutMs?: number;
  /** A Retry-After above this many seconds is not waited for: the error is thrown (default 60). */
  maxRetryAfterSeconds?: number;
  /** A fetch to use instead of the global one (a custom agent, a test double). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Called before each retry, for logs and metrics. */
  onRetry?: (event: RetryEvent) => void;
}

export interface CallOptions {
  /** Cancels the call, waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Node's setTimeout (and the browsers') turns a longer delay into 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Retried: no answer (network, timeout), 429/502/503/504, and the wrapper's 500 send_failed when
 * it says to retry (Retry-After: the core was unreachable or unavailable, and the request
 * carried an idempotencyKey, so a retry cannot send twice).
 */
function isRetried(error: MailsvcError): boolean {
  if (error.status === 0) return error.code !== 'invalid_response';
  if (error.code === 'send_failed') return error.retryAfter !== undefined;
  return RETRIED_STATUSES.has(error.status);
}

/** Exponential backoff with jitter: half the step for sure, half at random (500 ms, 1 s, 2 s … 8 s). */
function backoff(attempt: number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}

// RFC 9110 §5.6.7 IMF-fixdate, the only date form a server may send: Sun, 06 Nov 1994 08:49:37 GMT
const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Seconds from `Retry-After` (delta-seconds or an HTTP date); undefined when absent or malformed. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed);
  if (!HTTP_DATE.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A fresh Idempotency-Key: a random UUID (crypto.randomUUID needs a secure context in browsers). */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function trimTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 47) end--;
  return url.slice(0, end);
}

interface ErrorAnswer {
  ok: false;
  error: { code: string; message: string; details?: ErrorDetail[]; requestId?: string };
}

function isErrorAnswer(body: unknown): body is ErrorAnswer {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: { code?: unknown; message?: unknown } | null }).error;
  return (
    (body as { ok?: unknown }).ok === false &&
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
  );
}

const isOkAnswer = (body: unknown) =>
  typeof body === 'object' && body !== null && (body as { ok?: unknown }).ok === true;

function checkedNumber(name: string, value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (value > max && value !== Infinity))
    throw new TypeError(
      `${name} must be a number from 0 to ${max}${max === MAX_TIMER_MS ? ', or Infinity' : ''}`,
    );
  return value;
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Headers of every attempt, asked for again before each (a fresh App Check token, say). */
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** The send's Idempotency-Key, reported on errors and retry events (the caller sets it in headers or body). */
  idempotencyKey?: string | undefined;
}

export class Transport {
  readonly baseUrl: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly send: (input: string, init: RequestInit) => Promise<Response>;
  private readonly onRetry: ClientOptions['onRetry'];

  constructor(options: ClientOptions) {
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl))
      throw new TypeError('baseUrl must be an http or https URL, such as http://127.0.0.1:3000');
    this.baseUrl = trimTrailingSlashes(options.baseUrl);
    this.maxRetries = Math.floor(checkedNumber('maxRetries', options.maxRetries, 2, 100));
    this.timeoutMs = checkedNumber('timeoutMs', options.timeoutMs, 30_000, MAX_TIMER_MS);
    this.maxRetryAfterSeconds = checkedNumber(
      'maxRetryAfterSeconds',
      options.maxRetryAfterSeconds,
      60,
      86_400,
    );
    // Called as a plain function: browsers and Workers refuse a fetch called on another object.
    const custom = options.fetch;
    this.send = custom
      ? (input, init) => custom(input, init)
      : (input, init) => globalThis.fetch(input, init);
    this.onRetry = options.onRetry;
  }

  async request<T>(req: Request): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt<T>(req, attempt);
      if (!(outcome instanceof MailsvcError)) return outcome;
      const waitSeconds = outcome.retryAfter;
      const isWaitTooLong = waitSeconds !== undefined && waitSeconds > this.maxRetryAfterSeconds;
      if (attempt > this.maxRetries || !isRetried(outcome) || isWaitTooLong) throw outcome;
      const delayMs =
        waitSeconds !== undefined
          ? waitSeconds * 1000 + Math.random() * Math.min(1000, waitSeconds * 100)
          : backoff(attempt);
      this.onRetry?.({ attempt, delayMs, error: outcome, idempotencyKey: req.idempotencyKey });
      await sleep(delayMs, req.signal);
    }
  }

  /** One attempt: the answer's body, or the error it amounts to (thrown only for the caller's abort). */
  private async attempt<T>(req: Request, attempt: number): Promise<T | MailsvcError> {
    const { signal, idempotencyKey } = req;
    signal?.throwIfAborted();
    // A failure of the caller's own header source (an App Check token function) is thrown as is.
    const extra = await req.headers?.();
    signal?.throwIfAborted();
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    let isTimedOut = false;
    const timer =
      this.timeoutMs === Infinity
        ? undefined
        : setTimeout(() => {
            isTimedOut = true;
            controller.abort();
          }, this.timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const clientError = (code: ClientErrorCode, message: string, status: number, cause?: unknown) =>
      new MailsvcError<MailsvcErrorCode>({ code, message, status, attempts: attempt, cause, idempotencyKey });
    let res: Response;
    let text: string;
    try {
      const url = `${this.baseUrl}${req.path}`;
      const init: RequestInit = {
        method: req.method,
        headers,
        signal: controller.signal,
        ...(req.body !== undefined && { body: JSON.stringify(req.body) }),
      };
      res = await this.send(url, init);
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (isTimedOut)
        return clientError('timeout', `No answer from ${this.baseUrl} within ${this.timeoutMs} ms.`, 0, err);
      const reason = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = reason?.code ?? reason?.message ?? (err as Error).message;
      return clientError('network_error', `Could not reach ${this.baseUrl} (${detail}).`, 0, err);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const requestId = res.headers.get('x-request-id') ?? undefined;
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
    if (res.ok && isOkAnswer(body)) return body as T;
    if (!res.ok && isErrorAnswer(body)) {
      return new MailsvcError<MailsvcErrorCode>({
        code: body.error.code as MailsvcErrorCode,
        message: body.error.message,
        status: res.status,
        requestId: body.error.requestId ?? requestId,
        details: body.error.details,
        retryAfter,
        attempts: attempt,
        idempotencyKey,
      });
    }
    return new MailsvcError<MailsvcErrorCode>({
      code: 'invalid_response',
      message: `${this.baseUrl} answered ${res.status} without the API's JSON body.`,
      status: res.status,
      requestId,
      retryAfter,
      attempts: attempt,
      idempotencyKey,
    });
  }
}
