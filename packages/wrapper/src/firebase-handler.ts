// The Firebase function's request handler: the Functions runtime's (Express) request and response
// adapted to the router. The entry that wraps it in onRequest is packages/wrapper/firebase/index.ts,
// kept apart so this package never needs firebase-functions.

import { newRequestId } from '@mailsvc/contract/http';
import { compileValidators } from '@mailsvc/templates';
import { lastForwardedFor } from './client-ip.js';
import { loadWrapperConfig, WrapperConfigError } from './config.js';
import { createWrapperLogger, type Logger } from './logger.js';
import { createRouter, type RouterOptions, type WrapperRouter } from './router.js';

/** What the handler uses of the Functions runtime's (Express) request and response. */
interface FunctionRequest {
  method: string;
  url: string;
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody?: Buffer;
  body?: unknown;
  socket: { remoteAddress?: string | undefined };
}
interface FunctionResponse {
  status(code: number): FunctionResponse;
  set(headers: Record<string, string>): FunctionResponse;
  send(body: string): unknown;
}

/**
 * The request handler. Settings are read at the first request, not at load: the secret is not
 * there while deploying. A function is public, so it refuses to serve anonymous callers unless
 * App Check is required or MAILSVC_ALLOW_ANONYMOUS=true (checkAnonymousAccess).
 */
export function createFirebaseHandler(
  opts: {
    env?: () => Record<string, string | undefined>;
    log?: Logger;
    router?: Partial<Omit<RouterOptions, 'config'>>;
  } = {},
) {
  // At the instance's start, not in its first request (the router is made there): every request
  // validates its data.
  compileValidators();
  let router: WrapperRouter | undefined;
  const log = opts.log ?? createWrapperLogger('info');
  return async (req: FunctionRequest, res: FunctionResponse): Promise<void> => {
    if (!router) {
      try {
        const config = loadWrapperConfig(opts.env?.() ?? process.env, { runtime: 'firebase' });
        router = createRouter({ config, ...(opts.log && { log: opts.log }), ...opts.router });
      } catch (err) {
        if (!(err instanceof WrapperConfigError)) throw err;
        const requestId = newRequestId();
        log.error(
          { requestId, problems: err.problems.map((p) => `${p.key} ${p.message}`) },
          'wrapper misconfigured',
        );
        res
          .status(500)
          .set({ 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId })
          .send(
            JSON.stringify({
              ok: false,
              error: { code: 'internal', message: 'The wrapper is not configured. See its logs.', requestId },
            }),
          );
        return;
      }
    }
    // rawBody is the untouched request body: the router parses it itself, the same way the
    // standalone server does, whatever body parser ran before.
    const body: Buffer | undefined =
      req.rawBody ??
      (typeof req.body === 'string'
        ? Buffer.from(req.body)
        : req.body
          ? Buffer.from(JSON.stringify(req.body))
          : undefined);
    const out = await router.handle({
      method: req.method,
      path: req.originalUrl || req.url,
      headers: req.headers,
      body,
      // Not req.ip: with Express's trust proxy on, that is the first X-Forwarded-For entry, which
      // the caller chooses.
      ip: lastForwardedFor(req.headers['x-forwarded-for']) ?? req.socket.remoteAddress ?? 'unknown',
    });
    res.status(out.status).set(out.headers).send(out.body);
  };
}
