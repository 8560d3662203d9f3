// The framework-neutral router: a request in, a response out. The Firebase function and the
// standalone server both call handle(); neither adds behaviour of its own.
//
// Order of checks (the first failure answers, and nothing reaches the core before the last step);
// each is a step of router-steps.ts, run in this order by answer() below:
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
import { BODY_LIMIT } from '@mailsvc/contract/http';
import { type LimitPolicy, memoryRateLimitStore, redisRateLimitStore } from '@mailsvc/contract/rate-limit';
import { trimTrailingSlashes } from '@mailsvc/contract/settings';
import { compileValidators } from '@mailsvc/templates';
import { type AppCheckVerifier, type FirebaseAdmin, firebaseAppCheckVerifier } from './app-check.js';
import type { WrapperConfig } from './config.js';
import { type Exchange, openExchange, refuse } from './exchange.js';
import { createForwarder, type Forwarder } from './forward.js';
import { createWrapperLogger, type Logger } from './logger.js';
import { buildOpenApi } from './openapi.js';
import {
  checkAppCheck,
  checkRequestBody,
  forwardToCore,
  isKnownPath,
  limitClient,
  limitRecipient,
  mapCoreAnswer,
  type RouterContext,
  readJsonBody,
  refuseForeignOrigin,
  routeRequest,
} from './router-steps.js';
import type { TemplateRoute } from './routes.js';

export { recipientLimitKey } from './router-steps.js';
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

// The emulator's address shape; a deployed function sees the path without it.
const EMULATOR_PREFIX = /^\/[^/]+\/europe-west2\/[^/]+(?=\/|$)/;

export function routePathOf(rawPath: string): string {
  const path = rawPath.split('?')[0] || '/';
  // Anchored, and no two quantifiers can match the same characters: linear.
  const stripped = path.replace(EMULATOR_PREFIX, '');
  return stripped === '' ? '/' : trimTrailingSlashes(stripped);
}

const RATE_LIMIT_PREFIX = 'mailsvc:wrapper:rl';

export function createRouter(opts: RouterOptions): WrapperRouter {
  compileValidators(); // every request validates its data: compiled before the first one
  const { config } = opts;
  const log = opts.log ?? createWrapperLogger(config.LOG_LEVEL);
  const now = opts.now ?? Date.now;
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
  let openApiBody: string | undefined;
  const ctx: RouterContext = {
    config,
    log,
    forwarder,
    verifyAppCheck,
    ipPolicy,
    recipientPolicy,
    byIp: limits.limiter(ipPolicy),
    byRecipient: limits.limiter(recipientPolicy),
    openApiBody: () => (openApiBody ??= JSON.stringify(buildOpenApi())),
  };

  return {
    handle: (req) => handle(ctx, now, req),
    async close() {
      forwarder.close();
      await limits.close();
    },
  };
}

/** One request: its steps, an unexpected throw answered 500 internal, and its log line. */
async function handle(ctx: RouterContext, now: () => number, req: WrapperRequest): Promise<WrapperResponse> {
  const started = now();
  const x = openExchange(req, started, routePathOf(req.path), ctx.config.MAILSVC_ALLOWED_ORIGINS);
  // An unknown path is what a caller typed (an address, a token): logged as the core does, unnamed.
  if (!isKnownPath(x.path)) x.logFields.path = '(no route)';
  let res: WrapperResponse;
  try {
    res = await answer(ctx, x);
  } catch (err) {
    ctx.log.error({ ...x.logFields, err }, 'unhandled error in the wrapper');
    res = refuse(x, 'internal', 'An unexpected error occurred. Quote the requestId when reporting it.');
  }
  const level = res.status >= 500 ? 'error' : 'info';
  ctx.log[level]({ ...x.logFields, status: res.status, ms: now() - started }, 'request');
  return res;
}

/** The steps of the header, in order: the first that answers ends the request. */
async function answer(ctx: RouterContext, x: Exchange): Promise<WrapperResponse> {
  const foreign = refuseForeignOrigin(x);
  if (foreign) return foreign;
  const routed = routeRequest(ctx, x);
  if ('answer' in routed) return routed.answer;
  return send(ctx, x, routed.route);
}

/** Steps 3 to 8, for a POST to a template route. */
async function send(ctx: RouterContext, x: Exchange, route: TemplateRoute): Promise<WrapperResponse> {
  x.logFields.templateId = route.templateId;
  const refusal = (await limitClient(ctx, x)) ?? (await checkAppCheck(ctx, x, route));
  if (refusal) return refusal;
  const read = readJsonBody(x);
  if ('answer' in read) return read.answer;
  const checked = checkRequestBody(ctx, x, route, read.body);
  if ('answer' in checked) return checked.answer;
  const limited = await limitRecipient(ctx, x, checked.recipient);
  if (limited) return limited;
  const forwarded = await forwardToCore(ctx, x, route, checked.envelope);
  if ('answer' in forwarded) return forwarded.answer;
  return mapCoreAnswer(ctx, x, forwarded.reply, checked.envelope);
}
