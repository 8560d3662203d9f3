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
}

export interface ClientOptions {
  /** Where the API answers, e.g. `http://127.0.0.1:3000` or `https://mail.example.com`. */
  baseUrl: string;
  /** Retries after the first attempt (default 2); 0 turns retrying off. */
  maxRetries?: number;
  /** Per attempt, from sending the request to the end of the answer (default 30,000 ms). */
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

function isRetried(error: MailsvcError): boolean {
  return error.status === 0 ? error.code !== 'invalid_response' : RETRIED_STATUSES.has(error.status);
}

/** Exponential backoff with jitter: half the step for sure, half at random (500 ms, 1 s, 2 s … 8 s). */
function backoff(attempt: number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}

/** Seconds from `Retry-After` (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
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
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return (
    (body as { ok?: unknown }).ok === false &&
    typeof error?.code === 'string' &&
    typeof error.message === 'string'
  );
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Headers of every attempt, asked for again before each (a fresh App Check token, say). */
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  signal?: AbortSignal | undefined;
}

export class Transport {
  readonly baseUrl: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly fetchImpl: ClientOptions['fetch'];
  private readonly onRetry: ClientOptions['onRetry'];

  constructor(options: ClientOptions) {
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl))
      throw new TypeError('baseUrl must be an http or https URL, such as http://127.0.0.1:3000');
    this.baseUrl = trimTrailingSlashes(options.baseUrl);
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 2));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 60;
    this.fetchImpl = options.fetch;
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
      this.onRetry?.({ attempt, delayMs, error: outcome });
      await sleep(delayMs, req.signal);
    }
  }

  /** One attempt: the answer's body, or the error it amounts to (thrown only for the caller's abort). */
  private async attempt<T>(req: Request, attempt: number): Promise<T | MailsvcError> {
    const { signal } = req;
    signal?.throwIfAborted();
    const headers: Record<string, string> = { accept: 'application/json', ...(await req.headers?.()) };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    let isTimedOut = false;
    const timer = setTimeout(() => {
      isTimedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const clientError = (code: ClientErrorCode, message: string, status: number, cause?: unknown) =>
      new MailsvcError<MailsvcErrorCode>({ code, message, status, attempts: attempt, cause });
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
      res = this.fetchImpl ? await this.fetchImpl(url, init) : await globalThis.fetch(url, init);
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (isTimedOut)
        return clientError('timeout', `No answer from ${this.baseUrl} within ${this.timeoutMs} ms.`, 0, err);
      const reason = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = reason?.code ?? reason?.message ?? (err as Error).message;
      return clientError('network_error', `Could not reach ${this.baseUrl} (${detail}).`, 0, err);
    } finally {
      clearTimeout(timer);
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
    if (res.ok && (body as { ok?: unknown } | undefined)?.ok === true) return body as T;
    if (!res.ok && body !== undefined && isErrorAnswer(body)) {
      return new MailsvcError<MailsvcErrorCode>({
        code: body.error.code as MailsvcErrorCode,
        message: body.error.message,
        status: res.status,
        requestId: body.error.requestId ?? requestId,
        details: body.error.details,
        retryAfter,
        attempts: attempt,
      });
    }
    return new MailsvcError<MailsvcErrorCode>({
      code: 'invalid_response',
      message: `${this.baseUrl} answered ${res.status} without the API's JSON body.`,
      status: res.status,
      requestId,
      retryAfter,
      attempts: attempt,
    });
  }
}
