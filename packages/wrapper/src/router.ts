// The framework-neutral router: a request in, a response out. The Firebase function and the
// standalone server both call handle(); neither adds behaviour of its own.
//
// Order of checks (the first failure answers, and nothing reaches the core before the last step):
//  1. Origin (403 origin_not_allowed) — before anything else, so a disallowed page learns nothing
//  2. preflight (OPTIONS), route (404 not_found), method (405 method_not_allowed, Allow)
//  3. per-IP rate limit (429 rate_limited)
//  4. App Check when required (401 app_check_required / app_check_invalid); tokens consumed on
//     security templates by default (MAILSVC_APP_CHECK_CONSUME)
//  5. media type (415), size (413), JSON (400 invalid_request)
//  6. envelope (400 invalid_request; from/fromName/replyTo only with MAILSVC_ALLOW_SENDER_OVERRIDE),
//     fromName (400 invalid_from_name), data against the template, then its links against
//     MAILSVC_ALLOWED_LINK_HOSTS (400 invalid_template_data)
//  7. per-recipient rate limit (429 rate_limited)
//  8. forward to the core and map its answer (DESIGN.md §8)
import { checkDisplayName } from '@mailsvc/contract/display-name';
import { maskEmail, parseEmail } from '@mailsvc/contract/email';
import { capErrorDetails } from '@mailsvc/contract/errors';
import { BODY_LIMIT, newRequestId } from '@mailsvc/contract/http';
import { describeJsonBodyFailure, parseJsonBody } from '@mailsvc/contract/json-input';
import {
  clientLimitKey,
  type LimitPolicy,
  memoryRateLimitStore,
  rateLimitHeaders,
  redisRateLimitStore,
} from '@mailsvc/contract/rate-limit';
import { trimTrailingSlashes } from '@mailsvc/contract/settings';
import { getTemplate, validateTemplateData } from '@mailsvc/templates';
import {
  APP_CHECK_HEADER,
  type AppCheckVerifier,
  type FirebaseAdmin,
  firebaseAppCheckVerifier,
} from './app-check.js';
import type { WrapperConfig } from './config.js';
import { checkOrigin, corsHeaders, preflightHeaders } from './cors.js';
import { checkEnvelope } from './envelope.js';
import { type ErrorDetail, handlingOf, type WrapperErrorCode, wrapperErrors } from './errors.js';
import { type CoreSendBody, CoreUnreachableError, createForwarder, type Forwarder } from './forward.js';
import { linkProblems } from './links.js';
import { createWrapperLogger, type Logger } from './logger.js';
import { buildOpenApi } from './openapi.js';
import { routesByPath, type TemplateRoute } from './routes.js';

export { BODY_LIMIT };

export interface WrapperRequest {
  method: string;
  /** Path, optionally with a query string; the emulator prefix /<project>/europe-west2/<function> is accepted. */
  path: string;
  /** Lowercase names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body (undefined or empty when there is none). */
  body?: Buffer | undefined;
  /** Client IP, as the runner determined it. */
  ip: string;
}

export interface WrapperResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RouterOptions {
  config: WrapperConfig;
  log?: Logger;
  /** Defaults to POST <MAILSVC_CORE_URL>/v1/send with the configured key. */
  forwarder?: Forwarder;
  /** Defaults to firebase-admin's verifyToken. */
  verifyAppCheck?: AppCheckVerifier;
  /** firebase-admin for the default verifier, when the host has it at hand (the Firebase entry). */
  firebaseAdmin?: FirebaseAdmin;
  /** Prefix of the rate-limit keys in Redis (tests give each run its own). */
  rateLimitPrefix?: string;
  now?: () => number;
}

export interface WrapperRouter {
  handle(req: WrapperRequest): Promise<WrapperResponse>;
  /** Closes the connections to the core and to Redis. */
  close(): Promise<void>;
}

const ROUTE_METHODS = 'OPTIONS, POST';
const DOC_PATH = '/openapi.json';
const DOC_METHODS = 'GET, HEAD, OPTIONS';
// The emulator's address shape; a deployed function sees the path without it.
const EMULATOR_PREFIX = /^\/[^/]+\/europe-west2\/[^/]+(?=\/|$)/;

export function routePathOf(rawPath: string): string {
  const path = rawPath.split('?')[0] || '/';
  // Anchored, and no two quantifiers can match the same characters: linear.
  const stripped = path.replace(EMULATOR_PREFIX, '');
  return stripped === '' ? '/' : trimTrailingSlashes(stripped);
}

/**
 * The per-recipient limit counts a mailbox, not a spelling: lowercase, IDN domain in punycode, and
 * without a `+tag`, which most providers deliver to the same mailbox (jane+1@, jane+2@, … would
 * otherwise each get a fresh allowance). A local part that starts with `+` is kept whole.
 */
export function recipientLimitKey(address: string): string {
  const parsed = parseEmail(address);
  if (!parsed.ok) return address.trim().toLowerCase();
  const plus = parsed.local.indexOf('+');
  return plus > 0 ? `${parsed.local.slice(0, plus)}@${parsed.domain}` : parsed.address;
}

const RATE_LIMIT_PREFIX = 'mailsvc:wrapper:rl';

const header = (req: WrapperRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

export function createRouter(opts: RouterOptions): WrapperRouter {
  const { config } = opts;
  const log = opts.log ?? createWrapperLogger(config.LOG_LEVEL);
  const forwarder =
    opts.forwarder ??
    createForwarder({
      coreUrl: config.MAILSVC_CORE_URL,
      apiKey: config.MAILSVC_API_KEY,
      timeoutMs: config.MAILSVC_WRAPPER_TIMEOUT_MS,
    });
  const verifyAppCheck =
    opts.verifyAppCheck ??
    firebaseAppCheckVerifier({
      projectId: config.MAILSVC_APP_CHECK_PROJECT_ID,
      ...(opts.firebaseAdmin && { admin: opts.firebaseAdmin }),
    });
  const now = opts.now ?? Date.now;
  // Counted in Redis when configured, so N instances allow the limit once, not N times.
  const limits = config.MAILSVC_REDIS_URL
    ? redisRateLimitStore(config.MAILSVC_REDIS_URL, {
        log,
        prefix: opts.rateLimitPrefix ?? RATE_LIMIT_PREFIX,
      })
    : memoryRateLimitStore();
  const ipPolicy: LimitPolicy = {
    name: 'per-ip',
    points: config.MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE,
    windowSeconds: 60,
  };
  const recipientPolicy: LimitPolicy = {
    name: 'per-recipient',
    points: config.MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR,
    windowSeconds: 3600,
  };
  const byIp = limits.limiter(ipPolicy);
  const byRecipient = limits.limiter(recipientPolicy);
  let openApiBody: string | undefined;

  async function handle(req: WrapperRequest): Promise<WrapperResponse> {
    const started = now();
    const requestId = newRequestId(started);
    const method = req.method.toUpperCase();
    const path = routePathOf(req.path);
    const origin = checkOrigin(header(req, 'origin'), config.MAILSVC_ALLOWED_ORIGINS);
    const logFields: Record<string, unknown> = { requestId, method, path };

    const respond = (status: number, body: unknown, extra: Record<string, string> = {}): WrapperResponse => ({
      status,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'X-Request-Id': requestId,
        'Cache-Control': 'no-store',
        ...corsHeaders(origin),
        ...extra,
      },
      body: JSON.stringify(body),
    });
    const fail = (
      code: WrapperErrorCode | string,
      status: number,
      message: string,
      details?: ErrorDetail[],
      extra?: Record<string, string>,
    ) => {
      logFields.code = code;
      const capped = capErrorDetails(message, details);
      const error: Record<string, unknown> = { code, message: capped.message };
      if (capped.details && capped.details.length > 0) error.details = capped.details;
      error.requestId = requestId;
      return respond(status, { ok: false, error }, extra);
    };
    const refuse = (
      code: WrapperErrorCode,
      message: string,
      details?: ErrorDetail[],
      extra?: Record<string, string>,
    ) => fail(code, wrapperErrors[code].status, message, details, extra);

    let res: WrapperResponse;
    try {
      res = await route();
    } catch (err) {
      log.error({ ...logFields, err }, 'unhandled error in the wrapper');
      res = refuse('internal', 'An unexpected error occurred. Quote the requestId when reporting it.');
    }
    const level = res.status >= 500 ? 'error' : 'info';
    log[level]({ ...logFields, status: res.status, ms: now() - started }, 'request');
    return res;

    async function route(): Promise<WrapperResponse> {
      // 1. Origin: a page on another origin gets nothing, whatever it asks (a text/plain POST
      // needs no preflight, so CORS headers alone would not stop the send).
      if (origin.kind === 'refused') {
        return refuse('origin_not_allowed', 'Requests from this origin are not allowed.');
      }

      // 2. Preflight, route, method
      const templateRoute = routesByPath.get(path);
      const isDoc = path === DOC_PATH;
      if (!templateRoute && !isDoc) return refuse('not_found', `No route ${method} ${path}.`);
      const allow = isDoc ? DOC_METHODS : ROUTE_METHODS;
      if (method === 'OPTIONS') {
        const preflight =
          origin.kind === 'allowed' && header(req, 'access-control-request-method') !== undefined
            ? preflightHeaders(origin.origin, isDoc ? 'GET, HEAD' : 'POST')
            : {};
        return { status: 204, headers: { Allow: allow, 'X-Request-Id': requestId, ...preflight }, body: '' };
      }
      if (isDoc) {
        if (method !== 'GET' && method !== 'HEAD')
          return refuse('method_not_allowed', `This path allows ${allow}.`, undefined, { Allow: allow });
        openApiBody ??= JSON.stringify(buildOpenApi());
        const doc = respond(200, null, { 'Cache-Control': 'public, max-age=300' });
        return { ...doc, body: method === 'HEAD' ? '' : openApiBody };
      }
      if (method !== 'POST')
        return refuse('method_not_allowed', `This path allows ${allow}.`, undefined, { Allow: allow });
      return send(templateRoute!);
    }

    async function send(r: TemplateRoute): Promise<WrapperResponse> {
      logFields.templateId = r.templateId;
      // 3. per-IP rate limit
      const ipDecision = await byIp.consume(clientLimitKey(req.ip));
      if (!ipDecision.ok) {
        return refuse(
          'rate_limited',
          'Too many requests from this client; retry later.',
          undefined,
          rateLimitHeaders(ipPolicy, ipDecision),
        );
      }

      // 4. App Check
      if (config.MAILSVC_REQUIRE_APP_CHECK) {
        const token = header(req, APP_CHECK_HEADER);
        if (token === undefined || token.trim() === '') {
          return refuse(
            'app_check_required',
            'An App Check token is required in the X-Firebase-AppCheck header.',
          );
        }
        // Replay protection costs a call to Google per request; by default it is spent where a
        // replayed token hurts most: codes, links and alerts of security templates.
        const consume =
          config.MAILSVC_APP_CHECK_CONSUME === 'security'
            ? r.template.category === 'security'
            : config.MAILSVC_APP_CHECK_CONSUME;
        try {
          const verified = await verifyAppCheck(token.trim(), { consume });
          if (verified.alreadyConsumed) {
            return refuse('app_check_invalid', 'The App Check token was already used.');
          }
          logFields.appId = verified.appId;
        } catch (err) {
          const e = err as { code?: string; message?: string };
          log.warn(
            { requestId, appCheckError: e.code ?? 'unknown', reason: e.message },
            'App Check token refused',
          );
          return refuse('app_check_invalid', 'The App Check token is not valid.');
        }
      }

      // 5. media type, size, JSON
      const contentType = (header(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (contentType !== 'application/json') {
        return refuse('unsupported_media_type', 'Send the body as Content-Type: application/json.');
      }
      const raw = req.body ?? Buffer.alloc(0);
      if (raw.length > BODY_LIMIT) return refuse('payload_too_large', 'The body is over the 256 KiB limit.');
      // The core's rules for any JSON body: no prototype-poisoning keys, nesting bounded, no
      // string PostgreSQL cannot store (each refused with its path).
      const parsed = parseJsonBody(raw.toString('utf8'));
      if (!parsed.ok) {
        return refuse('invalid_request', describeJsonBodyFailure(parsed.reason), parsed.problems);
      }
      const body = parsed.value;

      // 6. envelope, sender name, data, links
      const checked = checkEnvelope(body, { allowSenderOverride: config.MAILSVC_ALLOW_SENDER_OVERRIDE });
      if (!checked.ok) return refuse('invalid_request', 'The request body is not valid.', checked.details);
      const { envelope, recipient } = checked;
      logFields.to = maskEmail(recipient);
      logFields.templateVersion = envelope.templateVersion;
      if (envelope.fromName !== undefined) {
        // The core's rule (DESIGN.md §2), applied here so a spoofing name is refused before it
        // costs a core call or the recipient's allowance.
        const problem = checkDisplayName(envelope.fromName);
        if (problem)
          return refuse('invalid_from_name', 'The sender name is not allowed.', [
            { path: '/fromName', message: problem },
          ]);
      }
      const version = publishedVersion(r.templateId, envelope.templateVersion);
      if (version) {
        const result = validateTemplateData(version, envelope.data);
        if (!result.ok) {
          return refuse(
            'invalid_template_data',
            `The data does not match template ${r.templateId} ${envelope.templateVersion}.`,
            result.errors.map((e) => ({ path: `/data${e.path === '/' ? '' : e.path}`, message: e.message })),
          );
        }
        const links = linkProblems(version, result.data, config.MAILSVC_ALLOWED_LINK_HOSTS);
        if (links.length > 0) {
          return refuse('invalid_template_data', 'The data has links to hosts that are not allowed.', links);
        }
      } else if (config.MAILSVC_ALLOWED_LINK_HOSTS.length > 0) {
        // Its links cannot be checked here, and forwarding it would let them through unchecked.
        return refuse('invalid_request', 'The request body is not valid.', [
          {
            path: '/templateVersion',
            message: `must be a version this wrapper publishes for ${r.templateId} while MAILSVC_ALLOWED_LINK_HOSTS is set`,
          },
        ]);
      }
      // Otherwise a version this catalogue does not publish is left to the core, which may be
      // newer and otherwise answers 404 template_version_not_found.

      // 7. per-recipient rate limit
      const toDecision = await byRecipient.consume(recipientLimitKey(recipient));
      if (!toDecision.ok) {
        return refuse(
          'rate_limited',
          'Too many emails to this recipient; retry later.',
          undefined,
          rateLimitHeaders(recipientPolicy, toDecision),
        );
      }

      // 8. forward
      const coreBody: CoreSendBody = {
        templateId: r.templateId,
        to: envelope.to,
        data: envelope.data,
        templateVersion: envelope.templateVersion,
      };
      if (envelope.from !== undefined) coreBody.from = envelope.from;
      if (envelope.fromName !== undefined) coreBody.fromName = envelope.fromName;
      if (envelope.replyTo !== undefined) coreBody.replyTo = envelope.replyTo;
      let reply: Awaited<ReturnType<Forwarder['send']>>;
      try {
        reply = await forwarder.send(coreBody, envelope.idempotencyKey);
      } catch (err) {
        if (!(err instanceof CoreUnreachableError)) throw err;
        log.error({ requestId, reason: err.reason, message: err.message }, 'core send failed');
        return sendFailed(
          err.reason === 'too_large' ? undefined : '1',
          envelope.idempotencyKey !== undefined,
        );
      }
      logFields.coreStatus = reply.status;
      if (reply.requestId) logFields.coreRequestId = reply.requestId;
      const coreBodyObj = reply.body as
        | { ok?: unknown; messageId?: unknown; error?: Record<string, unknown> }
        | undefined;
      if (reply.status === 200 && coreBodyObj?.ok === true) {
        logFields.messageId = coreBodyObj.messageId;
        return respond(200, coreBodyObj);
      }
      const coreError = coreBodyObj?.error;
      const code = coreError?.code;
      const handling = reply.status >= 400 && reply.status < 500 ? handlingOf(code) : 'failed';
      logFields.coreCode = code;
      if (handling === 'pass') {
        const details = Array.isArray(coreError?.details) ? (coreError.details as ErrorDetail[]) : undefined;
        const extra: Record<string, string> = {};
        if (reply.status === 429 && reply.retryAfter) extra['Retry-After'] = reply.retryAfter;
        return fail(
          code as string,
          reply.status,
          typeof coreError?.message === 'string' ? coreError.message : 'The core refused the request.',
          details,
          extra,
        );
      }
      if (handling === 'misconfigured') {
        log.error(
          { requestId, coreStatus: reply.status, coreCode: code },
          'the core refused the wrapper API key or its scope: check MAILSVC_API_KEY',
        );
        return sendFailed();
      }
      log.error({ requestId, coreStatus: reply.status, coreCode: code }, 'core send failed');
      // The core unavailable or a gateway before it: worth a retry later.
      const isTransient = reply.status === 502 || reply.status === 503 || reply.status === 504;
      const wait =
        reply.retryAfter !== undefined && /^\d{1,6}$/.test(reply.retryAfter) ? reply.retryAfter : '1';
      return sendFailed(isTransient ? wait : undefined, envelope.idempotencyKey !== undefined);
    }

    /**
     * 500 send_failed (DESIGN.md §8). With `retryAfter` (the core unreachable, timed out or
     * unavailable) and an idempotencyKey in the request, the answer carries Retry-After: the
     * caller may retry with the same key, which cannot send twice. Without a key it does not
     * (a timed-out send may have been accepted, and a retry could send it again).
     */
    function sendFailed(retryAfter?: string, hasIdempotencyKey = false) {
      const isRetryable = retryAfter !== undefined && hasIdempotencyKey;
      return fail(
        'send_failed',
        500,
        'The email could not be sent. Quote the requestId when reporting it.',
        undefined,
        isRetryable ? { 'Retry-After': retryAfter } : undefined,
      );
    }
  }

  return {
    handle,
    async close() {
      forwarder.close();
      await limits.close();
    },
  };
}

function publishedVersion(templateId: string, version: string) {
  try {
    return getTemplate(templateId, version).version;
  } catch {
    return undefined;
  }
}
