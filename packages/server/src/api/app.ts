import http from 'node:http';
import type { Duplex } from 'node:stream';
import { BODY_LIMIT } from '@mailsvc/contract/http';
import {
  canAnswerOnSocket,
  hostHeaderCount,
  parserRefusal,
  writeRawErrorResponse,
} from '@mailsvc/contract/http-node';
import { compileValidators } from '@mailsvc/templates';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Deps } from '../domain/deps.js';
import { ApiError, type ErrorCode, errorCatalogue } from '../errors.js';
import { newId } from '../ids.js';
import { addMailsvcFormats, ajvOptions } from '../validation.js';
import { installAuth } from './auth-hook.js';
import { consoleAssetRoutes } from './console/console-assets.js';
import { consolePreviewRoutes } from './console/console-preview.js';
import { consoleApiRoutes } from './console/console-routes.js';
import { collectRoutesFor405, installErrorHandling, parseJsonRequestBody, sendError } from './errors.js';
import { registerOpenApi, registerOpenApiRoutes } from './openapi.js';
import { adminRoutes } from './routes/admin.js';
import { auditRoutes } from './routes/audit.js';
import { bulkRoutes } from './routes/bulk.js';
import { contactRoutes } from './routes/contacts.js';
import { domainRoutes } from './routes/domains.js';
import { eventRoutes } from './routes/events.js';
import { groupRoutes } from './routes/groups.js';
import { healthRoutes } from './routes/health.js';
import { keyRoutes } from './routes/keys.js';
import { metricsRoutes } from './routes/metrics.js';
import { quotaRoutes } from './routes/quota.js';
import { recipientRoutes } from './routes/recipients.js';
import { sendRoutes } from './routes/send.js';
import { statsRoutes } from './routes/stats.js';
import { suppressionRoutes } from './routes/suppressions.js';
import { templateRoutes } from './routes/templates.js';
import { isUnsubscribePath, sendInvalidLinkPage, unsubscribeRoutes } from './routes/unsubscribe.js';
import { webhookRoutes } from './routes/webhooks.js';

/**
 * One log line per request, when it completes (method, path, status, time), instead of Fastify's
 * two: logging is a visible share of the CPU an accept costs (bench/accept.ts profile).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

export { BODY_LIMIT };

/** An error in the envelope, written straight to a socket Fastify never got a request for. */
function writeRawError(socket: Duplex, code: ErrorCode, message: string): void {
  writeRawErrorResponse(socket, {
    status: errorCatalogue[code].status,
    code,
    message,
    requestId: newId('req'),
  });
}

export interface AppOptions {
  /** Enables /admin/v1 with this bearer token. */
  adminToken?: string | undefined;
  /** Extra route groups (dev pages) registered with the same conventions. */
  extraRoutes?: ((app: FastifyInstance) => unknown)[];
  /**
   * Called when a route answers an error code its contract does not declare (tests fail on it;
   * in production it is logged).
   */
  onUndeclaredError?: (route: string, code: string) => void;
}

/**
 * Every /v1 route answers only the error codes its operation declares (@mailsvc/contract/api):
 * the contract, the OpenAPI document and the SDK's typed errors stay true.
 */
function installDeclaredErrorsCheck(
  app: FastifyInstance,
  onUndeclared: AppOptions['onUndeclaredError'],
): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const declared = req.routeOptions.config?.declaredErrors;
    if (!declared || reply.statusCode < 400 || typeof payload !== 'string') return payload;
    let code: unknown;
    try {
      code = (JSON.parse(payload) as { error?: { code?: unknown } }).error?.code;
    } catch {
      return payload;
    }
    if (typeof code === 'string' && !declared.has(code as never)) {
      const route = `${req.method} ${req.routeOptions.url}`;
      req.log.warn({ route, code }, 'answered an error code the route does not declare');
      onUndeclared?.(route, code);
    }
    return payload;
  });
}

/** Fastify with the contract's conventions: request ids, timeouts, strict Ajv, errors in the envelope. */
function createFastify(deps: Deps): FastifyInstance {
  return Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    // One trusted hop, the proxy connecting to us: the client is the address it appended last to
    // X-Forwarded-For. (`true` would trust every hop and take the first entry, which the client
    // writes itself; a hop count is refused by Fastify.)
    ...(deps.config.MAILSVC_TRUST_PROXY && { trustProxy: (_address: string, hop: number) => hop === 0 }),
    // Answered in the envelope below instead (Fastify's own 503 body is not).
    return503OnClosing: false,
    logController: new OneLinePerRequest(),
    // Fastify's default strips unknown properties and coerces types; the contract is strict.
    // onCreate runs after the compiler's own ajv-formats: our email and date-time rules win.
    ajv: { customOptions: ajvOptions, onCreate: (ajv) => void addMailsvcFormats(ajv as never) },
    // A trickled body or header must not hold a connection (and SIGTERM) for minutes.
    requestTimeout: deps.config.MAILSVC_HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 5000,
    http: {
      // Node answers a missing Host itself, outside the envelope; checked in onRequest instead.
      requireHostHeader: false,
      headersTimeout: Math.min(20_000, deps.config.MAILSVC_HTTP_REQUEST_TIMEOUT_MS),
      // How often Node checks those timeouts (default 30 s, which would make them 30 s late).
      connectionsCheckingInterval: Math.min(1000, deps.config.MAILSVC_HTTP_REQUEST_TIMEOUT_MS),
    },
    // Requests Node's HTTP parser rejects (control characters in headers, bad framing, a header
    // over 16 KiB, a request that timed out) still get the JSON error envelope and a request id.
    clientErrorHandler: (err, socket) => {
      if (!canAnswerOnSocket(socket, err as { code?: string })) {
        socket.destroy();
        return;
      }
      const { code, message } = parserRefusal((err as { code?: string }).code);
      writeRawError(socket, code, message);
    },
    // Fastify's own routing failures, in the envelope: a path that does not decode
    // (`/v1/%zz`), a path parameter over maxParamLength.
    frameworkErrors: (err, req, reply) => {
      reply.header('X-Request-Id', req.id);
      if (err.code === 'FST_ERR_BAD_URL')
        return isUnsubscribePath(req.url)
          ? sendInvalidLinkPage(reply)
          : sendError(reply, 'invalid_request', 'The path is not valid (bad percent-encoding).');
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
        return sendError(reply, 'not_found', 'No such resource (a path segment is too long).');
      req.log.error({ err }, 'unhandled framework error');
      return sendError(
        reply,
        'internal',
        'An unexpected error occurred. Quote the requestId when reporting it.',
      );
    },
  });
}

/** Every method and CONNECT answered in the envelope; JSON bodies only, read by the shared input rules. */
function installMethodsAndBodies(app: FastifyInstance): void {
  // Every method Node's parser accepts is routable, so a known path answers 405 for any of them
  // (TRACE, PROPFIND, …) rather than 404. CONNECT never reaches the router: answered below.
  for (const method of http.METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method))
      app.addHttpMethod(method, { hasBody: true });
  }
  app.server.on('connect', (_req, socket) =>
    writeRawError(socket, 'method_not_allowed', 'CONNECT is not supported.'),
  );
  // Only JSON bodies: without the text/plain parser such requests get 415. JSON is parsed with
  // the shared input rules (@mailsvc/contract/json-input): no prototype-poisoning keys, nesting
  // bounded, no string PostgreSQL cannot store — each refused with its path.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
    parseJsonRequestBody(body as string, done),
  );
}

/** The request id on every answer, 503 while the server drains, and one Host header. */
function installRequestChecks(app: FastifyInstance): void {
  // Requests that arrive on open connections while the server drains (closeApp): 503 in the
  // envelope, and the connection is not kept.
  let isClosing = false;
  app.addHook('preClose', async () => {
    isClosing = true;
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    if (isClosing) {
      reply.header('Connection', 'close');
      throw new ApiError('service_unavailable', 'The service is restarting; retry shortly.', undefined, {
        'Retry-After': '1',
      });
    }
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined)
      throw new ApiError('invalid_request', 'HTTP/1.1 requests need a Host header.');
    if (hostHeaderCount(req.raw.rawHeaders) > 1)
      throw new ApiError('invalid_request', 'A request has one Host header (RFC 9112 §3.2).');
  });
}

async function registerRoutes(app: FastifyInstance, deps: Deps, opts: AppOptions): Promise<void> {
  healthRoutes(app, deps);
  metricsRoutes(app, deps.config, deps.metrics);
  quotaRoutes(app, deps);
  statsRoutes(app, deps);
  templateRoutes(app, deps);
  sendRoutes(app, deps);
  recipientRoutes(app, deps);
  keyRoutes(app, deps);
  auditRoutes(app, deps);
  suppressionRoutes(app, deps);
  webhookRoutes(app, deps);
  domainRoutes(app, deps);
  contactRoutes(app, deps);
  groupRoutes(app, deps);
  bulkRoutes(app, deps);
  await eventRoutes(app, deps);
  await unsubscribeRoutes(app, deps);
  await registerOpenApiRoutes(app);
  if (opts.adminToken) adminRoutes(app, deps);
  if (deps.config.MAILSVC_CONSOLE === 'on') {
    consoleApiRoutes(app, deps);
    consolePreviewRoutes(app, deps);
    consoleAssetRoutes(app);
  }
  for (const register of opts.extraRoutes ?? []) {
    // A group that registers a scope of its own (app.register) returns a promise: awaited, so its
    // routes are in place before add405s() reads them. (Not the app a route method returns: it is
    // thenable too, and awaiting it would load the plugins early.)
    const registering = register(app);
    if (registering instanceof Promise) await registering;
  }
}

export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  compileValidators(); // every send validates its data: compiled before the first one
  const app = createFastify(deps);
  installMethodsAndBodies(app);
  installRequestChecks(app);
  installErrorHandling(app);
  installAuth(app, deps, opts.adminToken);
  installDeclaredErrorsCheck(app, opts.onUndeclaredError);
  const add405s = collectRoutesFor405(app);
  await registerOpenApi(app, deps.config.MAILSVC_PUBLIC_URL);
  await registerRoutes(app, deps, opts);
  add405s();
  return app;
}

/**
 * Stops accepting connections, lets requests in flight finish for up to `ms`, then closes what is
 * still open: Fastify's close waits for every connection, so a client trickling a body would hold
 * the shutdown (and Node stops enforcing request timeouts once the server is closing).
 */
export async function closeApp(app: FastifyInstance, ms: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), ms);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

export { sendError };
