import { parseJsonBody } from '@mailsvc/contract/json-input';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Deps } from '../domain/deps.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { addMailsvcFormats, ajvOptions } from '../validation.js';
import { installAuth } from './auth-hook.js';
import { collectRoutesFor405, installErrorHandling, sendError } from './errors.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { quotaRoutes } from './routes/quota.js';
import { sendRoutes } from './routes/send.js';
import { unsubscribeRoutes } from './routes/unsubscribe.js';

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

export const BODY_LIMIT = 256 * 1024;

export interface AppOptions {
  /** Enables /admin/v1 with this bearer token. */
  adminToken?: string | undefined;
  /** Extra route groups (dev pages) registered with the same conventions. */
  extraRoutes?: ((app: FastifyInstance) => void)[];
}

export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    trustProxy: deps.config.MAILSVC_TRUST_PROXY,
    return503OnClosing: true,
    logController: new OneLinePerRequest(),
    // Fastify's default strips unknown properties and coerces types; the contract is strict.
    ajv: { customOptions: ajvOptions, plugins: [addMailsvcFormats] },
    // Requests Node's HTTP parser rejects (control characters in headers, bad framing) still
    // get the JSON error envelope.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const body = JSON.stringify({
        ok: false,
        error: { code: 'invalid_request', message: 'Malformed HTTP request.', requestId: newId('req') },
      });
      const status =
        (err as { code?: string }).code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
      socket.end(
        `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  });
  // Only JSON bodies: without the text/plain parser such requests get 415. JSON is parsed with
  // the shared input rules (@mailsvc/contract/json-input): no prototype-poisoning keys, nesting
  // bounded, no string PostgreSQL cannot store — each refused with its path.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const parsed = parseJsonBody(body as string);
    if (parsed.ok) return done(null, parsed.value);
    const message =
      parsed.reason === 'empty'
        ? 'The body is empty; send a JSON object.'
        : parsed.reason === 'syntax'
          ? 'The body is not valid JSON.'
          : 'The body has values the service does not accept; `details` lists each one.';
    done(new ApiError('invalid_request', message, parsed.problems));
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
  installErrorHandling(app);
  installAuth(app, deps, opts.adminToken);
  const add405s = collectRoutesFor405(app);

  healthRoutes(app, deps);
  quotaRoutes(app, deps);
  sendRoutes(app, deps);
  await unsubscribeRoutes(app, deps);
  if (opts.adminToken) adminRoutes(app, deps);
  for (const register of opts.extraRoutes ?? []) register(app);

  add405s();
  return app;
}

export { sendError };
