// The router's steps, in the order router.ts lists and runs them. A check answers with a refusal
// (the request stops there) or with nothing; a step that learns something (the route, the body,
// the envelope, the core's reply) hands it on, or answers `{ answer }` instead.
import { checkDisplayName } from '@mailsvc/contract/display-name';
import { maskEmail, parseEmail } from '@mailsvc/contract/email';
import { BODY_LIMIT } from '@mailsvc/contract/http';
import { describeJsonBodyFailure, parseJsonBody } from '@mailsvc/contract/json-input';
import {
  clientLimitKey,
  type Limiter,
  type LimitPolicy,
  rateLimitHeaders,
} from '@mailsvc/contract/rate-limit';
import { getTemplate, validateTemplateData } from '@mailsvc/templates';
import { APP_CHECK_HEADER, type AppCheckVerifier } from './app-check.js';
import type { WrapperConfig } from './config.js';
import { preflightHeaders } from './cors.js';
import { checkEnvelope, type Envelope } from './envelope.js';
import { type ErrorDetail, handlingOf } from './errors.js';
import { type Exchange, fail, headerOf, refuse, respond, sendFailed } from './exchange.js';
import { type CoreReply, type CoreSendBody, CoreUnreachableError, type Forwarder } from './forward.js';
import { linkProblems } from './links.js';
import type { Logger } from './logger.js';
import type { WrapperResponse } from './router.js';
import { routesByPath, type TemplateRoute } from './routes.js';

/** What the steps share across requests, wired once by createRouter. */
export interface RouterContext {
  config: WrapperConfig;
  log: Logger;
  forwarder: Forwarder;
  verifyAppCheck: AppCheckVerifier;
  ipPolicy: LimitPolicy;
  recipientPolicy: LimitPolicy;
  byIp: Limiter;
  byRecipient: Limiter;
  /** The OpenAPI document, serialised once. */
  openApiBody(): string;
}

const ROUTE_METHODS = 'OPTIONS, POST';
const DOC_PATH = '/openapi.json';
const DOC_METHODS = 'GET, HEAD, OPTIONS';

/**
 * 1. Origin: a page on another origin gets nothing, whatever it asks (a text/plain POST needs no
 * preflight, so CORS headers alone would not stop the send).
 */
export function refuseForeignOrigin(x: Exchange): WrapperResponse | undefined {
  if (x.origin.kind !== 'refused') return undefined;
  return refuse(x, 'origin_not_allowed', 'Requests from this origin are not allowed.');
}

/** A template route's path or the OpenAPI document's: what is answered, and what a request's log line may name. */
export const isKnownPath = (path: string) => routesByPath.has(path) || path === DOC_PATH;

/** 2. Preflight, route, method: answers all but a POST to a template route, which it hands on. */
export function routeRequest(
  ctx: RouterContext,
  x: Exchange,
): { answer: WrapperResponse } | { route: TemplateRoute } {
  const { method, path, requestId, origin } = x;
  if (!isKnownPath(path)) return { answer: refuse(x, 'not_found', `No route ${method} ${path}.`) };
  const templateRoute = routesByPath.get(path);
  const isDoc = path === DOC_PATH;
  const allow = isDoc ? DOC_METHODS : ROUTE_METHODS;
  if (method === 'OPTIONS') {
    const preflight =
      origin.kind === 'allowed' && headerOf(x.req, 'access-control-request-method') !== undefined
        ? preflightHeaders(origin.origin, isDoc ? 'GET, HEAD' : 'POST')
        : {};
    return {
      answer: { status: 204, headers: { Allow: allow, 'X-Request-Id': requestId, ...preflight }, body: '' },
    };
  }
  const notAllowed = () =>
    refuse(x, 'method_not_allowed', `This path allows ${allow}.`, undefined, { Allow: allow });
  if (isDoc) {
    if (method !== 'GET' && method !== 'HEAD') return { answer: notAllowed() };
    const openApiBody = ctx.openApiBody();
    const doc = respond(x, 200, null, { 'Cache-Control': 'public, max-age=300' });
    return { answer: { ...doc, body: method === 'HEAD' ? '' : openApiBody } };
  }
  if (method !== 'POST') return { answer: notAllowed() };
  return { route: templateRoute! };
}

/** 3. The per-IP rate limit. */
export async function limitClient(ctx: RouterContext, x: Exchange): Promise<WrapperResponse | undefined> {
  const decision = await ctx.byIp.consume(clientLimitKey(x.req.ip));
  if (decision.ok) return undefined;
  return refuse(
    x,
    'rate_limited',
    'Too many requests from this client; retry later.',
    undefined,
    rateLimitHeaders(ctx.ipPolicy, decision),
  );
}

/** 4. App Check, when required. */
export async function checkAppCheck(
  ctx: RouterContext,
  x: Exchange,
  route: TemplateRoute,
): Promise<WrapperResponse | undefined> {
  const { config } = ctx;
  if (!config.MAILSVC_REQUIRE_APP_CHECK) return undefined;
  const token = headerOf(x.req, APP_CHECK_HEADER);
  if (token === undefined || token.trim() === '') {
    return refuse(
      x,
      'app_check_required',
      'An App Check token is required in the X-Firebase-AppCheck header.',
    );
  }
  // Replay protection costs a call to Google per request; by default it is spent where a
  // replayed token hurts most: codes, links and alerts of security templates.
  const consume =
    config.MAILSVC_APP_CHECK_CONSUME === 'security'
      ? route.template.category === 'security'
      : config.MAILSVC_APP_CHECK_CONSUME;
  try {
    const verified = await ctx.verifyAppCheck(token.trim(), { consume });
    if (verified.alreadyConsumed)
      return refuse(x, 'app_check_invalid', 'The App Check token was already used.');
    x.logFields.appId = verified.appId;
    return undefined;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    ctx.log.warn(
      { requestId: x.requestId, appCheckError: e.code ?? 'unknown', reason: e.message },
      'App Check token refused',
    );
    return refuse(x, 'app_check_invalid', 'The App Check token is not valid.');
  }
}

/** 5. Media type, size, JSON. */
export function readJsonBody(x: Exchange): { answer: WrapperResponse } | { body: unknown } {
  const contentType = (headerOf(x.req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json') {
    return {
      answer: refuse(x, 'unsupported_media_type', 'Send the body as Content-Type: application/json.'),
    };
  }
  const raw = x.req.body ?? Buffer.alloc(0);
  if (raw.length > BODY_LIMIT)
    return { answer: refuse(x, 'payload_too_large', 'The body is over the 256 KiB limit.') };
  // The core's rules for any JSON body: no prototype-poisoning keys, nesting bounded, no
  // string PostgreSQL cannot store (each refused with its path).
  const parsed = parseJsonBody(raw.toString('utf8'));
  if (!parsed.ok) {
    return { answer: refuse(x, 'invalid_request', describeJsonBodyFailure(parsed.reason), parsed.problems) };
  }
  return { body: parsed.value };
}

/** 6. The envelope, the sender name, then the data and its links against the route's template. */
export function checkRequestBody(
  ctx: RouterContext,
  x: Exchange,
  route: TemplateRoute,
  body: unknown,
): { answer: WrapperResponse } | { envelope: Envelope; recipient: string } {
  const checked = checkEnvelope(body, { allowSenderOverride: ctx.config.MAILSVC_ALLOW_SENDER_OVERRIDE });
  if (!checked.ok)
    return { answer: refuse(x, 'invalid_request', 'The request body is not valid.', checked.details) };
  const { envelope, recipient } = checked;
  x.logFields.to = maskEmail(recipient);
  x.logFields.templateVersion = envelope.templateVersion;
  const refusal = checkSenderName(x, envelope) ?? checkTemplateData(ctx, x, route, envelope);
  return refusal ? { answer: refusal } : { envelope, recipient };
}

function checkSenderName(x: Exchange, envelope: Envelope): WrapperResponse | undefined {
  if (envelope.fromName === undefined) return undefined;
  // The core's rule (DESIGN.md §2), applied here so a spoofing name is refused before it
  // costs a core call or the recipient's allowance.
  const problem = checkDisplayName(envelope.fromName);
  if (!problem) return undefined;
  return refuse(x, 'invalid_from_name', 'The sender name is not allowed.', [
    { path: '/fromName', message: problem },
  ]);
}

function checkTemplateData(
  ctx: RouterContext,
  x: Exchange,
  route: TemplateRoute,
  envelope: Envelope,
): WrapperResponse | undefined {
  const allowedLinkHosts = ctx.config.MAILSVC_ALLOWED_LINK_HOSTS;
  const version = publishedVersion(route.templateId, envelope.templateVersion);
  if (!version) {
    // A version this catalogue does not publish is left to the core, which may be newer and
    // otherwise answers 404 template_version_not_found; but its links cannot be checked here, and
    // forwarding it would let them through unchecked.
    if (allowedLinkHosts.length === 0) return undefined;
    return refuse(x, 'invalid_request', 'The request body is not valid.', [
      {
        path: '/templateVersion',
        message: `must be a version this wrapper publishes for ${route.templateId} while MAILSVC_ALLOWED_LINK_HOSTS is set`,
      },
    ]);
  }
  const result = validateTemplateData(version, envelope.data);
  if (!result.ok) {
    return refuse(
      x,
      'invalid_template_data',
      `The data does not match template ${route.templateId} ${envelope.templateVersion}.`,
      result.errors.map((e) => ({ path: `/data${e.path === '/' ? '' : e.path}`, message: e.message })),
    );
  }
  const links = linkProblems(version, result.data, allowedLinkHosts);
  if (links.length === 0) return undefined;
  return refuse(x, 'invalid_template_data', 'The data has links to hosts that are not allowed.', links);
}

function publishedVersion(templateId: string, version: string) {
  try {
    return getTemplate(templateId, version).version;
  } catch {
    return undefined;
  }
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

/** 7. The per-recipient rate limit. */
export async function limitRecipient(
  ctx: RouterContext,
  x: Exchange,
  recipient: string,
): Promise<WrapperResponse | undefined> {
  const decision = await ctx.byRecipient.consume(recipientLimitKey(recipient));
  if (decision.ok) return undefined;
  return refuse(
    x,
    'rate_limited',
    'Too many emails to this recipient; retry later.',
    undefined,
    rateLimitHeaders(ctx.recipientPolicy, decision),
  );
}

/** 8a. Forward to the core's POST /v1/send; an unreachable core is answered 500 send_failed. */
export async function forwardToCore(
  ctx: RouterContext,
  x: Exchange,
  route: TemplateRoute,
  envelope: Envelope,
): Promise<{ answer: WrapperResponse } | { reply: CoreReply }> {
  const coreBody: CoreSendBody = {
    templateId: route.templateId,
    to: envelope.to,
    data: envelope.data,
    templateVersion: envelope.templateVersion,
  };
  if (envelope.from !== undefined) coreBody.from = envelope.from;
  if (envelope.fromName !== undefined) coreBody.fromName = envelope.fromName;
  if (envelope.replyTo !== undefined) coreBody.replyTo = envelope.replyTo;
  if (envelope.metadata !== undefined) coreBody.metadata = envelope.metadata;
  try {
    return { reply: await ctx.forwarder.send(coreBody, envelope.idempotencyKey) };
  } catch (err) {
    if (!(err instanceof CoreUnreachableError)) throw err;
    ctx.log.error({ requestId: x.requestId, reason: err.reason, message: err.message }, 'core send failed');
    const retryAfter = err.reason === 'too_large' ? undefined : '1';
    return { answer: sendFailed(x, retryAfter, envelope.idempotencyKey !== undefined) };
  }
}

/** 8b. The core's answer, mapped (DESIGN.md §8): passed on, or 500 send_failed. */
export function mapCoreAnswer(
  ctx: RouterContext,
  x: Exchange,
  reply: CoreReply,
  envelope: Envelope,
): WrapperResponse {
  const { log } = ctx;
  const { requestId } = x;
  x.logFields.coreStatus = reply.status;
  if (reply.requestId) x.logFields.coreRequestId = reply.requestId;
  const coreBodyObj = reply.body as
    | { ok?: unknown; messageId?: unknown; error?: Record<string, unknown> }
    | undefined;
  if (reply.status === 200 && coreBodyObj?.ok === true) {
    x.logFields.messageId = coreBodyObj.messageId;
    return respond(x, 200, coreBodyObj);
  }
  const coreError = coreBodyObj?.error;
  const code = coreError?.code;
  const handling = reply.status >= 400 && reply.status < 500 ? handlingOf(code) : 'failed';
  x.logFields.coreCode = code;
  if (handling === 'pass') {
    const details = Array.isArray(coreError?.details) ? (coreError.details as ErrorDetail[]) : undefined;
    const extra: Record<string, string> = {};
    if (reply.status === 429 && reply.retryAfter) extra['Retry-After'] = reply.retryAfter;
    const message =
      typeof coreError?.message === 'string' ? coreError.message : 'The core refused the request.';
    return fail(x, code as string, reply.status, message, details, extra);
  }
  if (handling === 'misconfigured') {
    log.error(
      { requestId, coreStatus: reply.status, coreCode: code },
      'the core refused the wrapper API key or its scope: check MAILSVC_API_KEY',
    );
    return sendFailed(x);
  }
  log.error({ requestId, coreStatus: reply.status, coreCode: code }, 'core send failed');
  // The core unavailable or a gateway before it: worth a retry later.
  const isTransient = reply.status === 502 || reply.status === 503 || reply.status === 504;
  const wait = reply.retryAfter !== undefined && /^\d{1,6}$/.test(reply.retryAfter) ? reply.retryAfter : '1';
  return sendFailed(x, isTransient ? wait : undefined, envelope.idempotencyKey !== undefined);
}
