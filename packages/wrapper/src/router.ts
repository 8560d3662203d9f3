// The framework-neutral router: a request in, a response out. The Firebase function and the
// standalone server both call handle(); neither adds behaviour of its own.
//
// Order of checks (the first failure answers, and nothing reaches the core before the last step):
//  1. Origin (403 origin_not_allowed) — before anything else, so a disallowed page learns nothing
//  2. preflight (OPTIONS), route (404 not_found), method (405 method_not_allowed, Allow)
//  3. per-IP rate limit (429 rate_limited)
//  4. App Check when required (401 app_check_required / app_check_invalid)
//  5. media type (415), size (413), JSON (400 invalid_request)
//  6. envelope (400 invalid_request), then data against the template (400 invalid_template_data)
//  7. per-recipient rate limit (429 rate_limited)
//  8. forward to the core and map its answer (DESIGN.md §8)
import { parseJsonBody } from '@mailsvc/contract/json-input';
import { getTemplate, validateTemplateData } from '@mailsvc/templates';
import { maskEmail } from '@mailsvc/templates/email';
import { APP_CHECK_HEADER, type AppCheckVerifier, firebaseAppCheckVerifier } from './app-check.js';
import type { WrapperConfig } from './config.js';
import { checkOrigin, corsHeaders, preflightHeaders } from './cors.js';
import { checkEnvelope } from './envelope.js';
import { type ErrorDetail, handlingOf, type WrapperErrorCode, wrapperErrors } from './errors.js';
import { type CoreSendBody, CoreUnreachableError, createForwarder, type Forwarder } from './forward.js';
import { createWrapperLogger, type Logger } from './logger.js';
import { buildOpenApi } from './openapi.js';
import { TokenBuckets } from './rate-limit.js';
import { newRequestId } from './request-id.js';
import { routesByPath, type TemplateRoute } from './routes.js';

export const BODY_LIMIT = 256 * 1024;

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
  now?: () => number;
}

export interface WrapperRouter {
  handle(req: WrapperRequest): Promise<WrapperResponse>;
  close(): void;
}

const ROUTE_METHODS = 'OPTIONS, POST';
const DOC_PATH = '/openapi.json';
const DOC_METHODS = 'GET, HEAD, OPTIONS';
// The emulator's address shape; a deployed function sees the path without it.
const EMULATOR_PREFIX = /^\/[^/]+\/europe-west2\/[^/]+(?=\/|$)/;

export function routePathOf(rawPath: string): string {
  const path = rawPath.split('?')[0] || '/';
  const stripped = path.replace(EMULATOR_PREFIX, '');
  return stripped === '' ? '/' : stripped.length > 1 ? stripped.replace(/\/+$/, '') : stripped;
}

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
    opts.verifyAppCheck ?? firebaseAppCheckVerifier({ projectId: config.MAILSVC_APP_CHECK_PROJECT_ID });
  const now = opts.now ?? Date.now;
  const byIp = new TokenBuckets({ limit: config.MAILSVC_WRAPPER_IP_LIMIT_PER_MINUTE, windowMs: 60_000, now });
  const byRecipient = new TokenBuckets({
    limit: config.MAILSVC_WRAPPER_RECIPIENT_LIMIT_PER_HOUR,
    windowMs: 3_600_000,
    now,
  });
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
      const error: Record<string, unknown> = { code, message };
      if (details && details.length > 0) error.details = details;
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
      const ipDecision = byIp.take(req.ip);
      if (!ipDecision.ok) {
        return refuse('rate_limited', 'Too many requests from this client; retry later.', undefined, {
          'Retry-After': String(ipDecision.retryAfterSeconds),
        });
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
        try {
          const verified = await verifyAppCheck(token.trim(), { consume: config.MAILSVC_APP_CHECK_CONSUME });
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
        const message =
          parsed.reason === 'empty'
            ? 'The body is empty; send a JSON object.'
            : parsed.reason === 'syntax'
              ? 'The body is not valid JSON.'
              : 'The body has values the service does not accept; `details` lists each one.';
        return refuse('invalid_request', message, parsed.problems);
      }
      const body = parsed.value;

      // 6. envelope, then data
      const checked = checkEnvelope(body);
      if (!checked.ok) return refuse('invalid_request', 'The request body is not valid.', checked.details);
      const { envelope, recipient } = checked;
      logFields.to = maskEmail(recipient);
      logFields.templateVersion = envelope.templateVersion;
      const version = publishedVersion(r.templateId, envelope.templateVersion);
      // A version this catalogue does not publish is left to the core, which may be newer and
      // otherwise answers 404 template_version_not_found.
      if (version) {
        const result = validateTemplateData(version, envelope.data);
        if (!result.ok) {
          return refuse(
            'invalid_template_data',
            `The data does not match template ${r.templateId} ${envelope.templateVersion}.`,
            result.errors.map((e) => ({ path: `/data${e.path === '/' ? '' : e.path}`, message: e.message })),
          );
        }
      }

      // 7. per-recipient rate limit
      const toDecision = byRecipient.take(recipient);
      if (!toDecision.ok) {
        return refuse('rate_limited', 'Too many emails to this recipient; retry later.', undefined, {
          'Retry-After': String(toDecision.retryAfterSeconds),
        });
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
        return sendFailed();
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
      } else {
        log.error({ requestId, coreStatus: reply.status, coreCode: code }, 'core send failed');
      }
      return sendFailed();
    }

    function sendFailed() {
      return refuse('send_failed', 'The email could not be sent. Quote the requestId when reporting it.');
    }
  }

  return {
    handle,
    close() {
      forwarder.close();
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
