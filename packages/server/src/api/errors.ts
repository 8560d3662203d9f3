import { operations } from '@mailsvc/contract/api';
import { capErrorDetails } from '@mailsvc/contract/errors';
import { describeJsonBodyFailure, parseJsonBody } from '@mailsvc/contract/json-input';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.js';
import { ApiError, type ErrorCode, type ErrorDetail, errorCatalogue } from '../errors.js';
import { toFieldProblems } from '../validation.js';

/**
 * A JSON request body by the shared input rules (@mailsvc/contract/json-input), handed to a
 * Fastify content-type parser's callback: the value, or 400 invalid_request with the path.
 */
export function parseJsonRequestBody(body: string, done: (err: Error | null, value?: unknown) => void): void {
  const parsed = parseJsonBody(body);
  if (parsed.ok) done(null, parsed.value);
  else done(new ApiError('invalid_request', describeJsonBodyFailure(parsed.reason), parsed.problems));
}

const answeredCodes = new WeakMap<FastifyRequest, ErrorCode>();

/** The error code a request was answered with (sendError), for hooks that run after the answer. */
export const answeredErrorCode = (req: FastifyRequest): ErrorCode | undefined => answeredCodes.get(req);

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, details?: ErrorDetail[]) {
  answeredCodes.set(reply.request, code);
  const capped = capErrorDetails(message, details);
  const body: Record<string, unknown> = { code, message: capped.message };
  if (capped.details && capped.details.length > 0) body.details = capped.details;
  body.requestId = reply.request.id;
  return reply
    .code(errorCatalogue[code].status)
    .type('application/json; charset=utf-8')
    .send({ ok: false, error: body });
}

/** Maps Fastify's own failures (routing, parsing, validation) to the catalogue. */
function fromFastifyError(err: FastifyError): ApiError | null {
  if (err.validation) {
    return new ApiError('invalid_request', 'The request body is not valid.', toFieldProblems(err.validation));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json.')
        : new ApiError('invalid_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The body is over the 256 KiB limit.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The body is empty; send a JSON object.', [
        { path: '/', message: 'is required' },
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The body is not valid JSON.', [
        { path: '/', message: 'is not valid JSON' },
      ]);
  }
  if (err instanceof SyntaxError || err.statusCode === 400) {
    // Bad JSON, and JSON with __proto__ / constructor.prototype keys (refused by Fastify).
    return new ApiError('invalid_request', 'The body is not valid JSON.', [
      { path: '/', message: err.message },
    ]);
  }
  if (err.statusCode === 413) return new ApiError('payload_too_large', 'The body is over the 256 KiB limit.');
  if (err.statusCode === 415)
    return new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json.');
  return null;
}

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    let apiError = err instanceof ApiError ? err : fromFastifyError(err);
    // An operation may word its body-validation refusal itself (the seed's for resubscribe).
    const operationId = req.routeOptions?.config?.operationId;
    const worded = operationId ? (operations[operationId] as { invalidRequestMessage?: string }) : undefined;
    if (err.validation && apiError && worded?.invalidRequestMessage) {
      apiError = new ApiError('invalid_request', worded.invalidRequestMessage, apiError.details);
    }
    if (apiError) {
      if (apiError.headers) reply.headers(apiError.headers);
      return sendError(reply, apiError.code, apiError.message, apiError.details);
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err }, 'database unavailable');
      reply.header('Retry-After', '1');
      return sendError(
        reply,
        'service_unavailable',
        'The service cannot reach its database right now. Retry shortly (with the same Idempotency-Key).',
      );
    }
    req.log.error({ err }, 'unhandled error');
    return sendError(
      reply,
      'internal',
      'An unexpected error occurred. Quote the requestId when reporting it.',
    );
  });

  app.setNotFoundHandler((req, reply) =>
    sendError(reply, 'not_found', `No route ${req.method} ${req.url.split('?')[0]}.`),
  );
}

/**
 * Known path, wrong method → 405 with Allow. Collects every route as it is declared and, once
 * all are in, declares the missing methods of each path. These routes carry no auth hook, so
 * the 405 comes before authentication.
 */
export function collectRoutesFor405(app: FastifyInstance): () => void {
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.config && (route.config as { is405?: boolean }).is405) return;
    const set = methodsByPath.get(route.url) ?? new Set<string>();
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) set.add(m);
    methodsByPath.set(route.url, set);
  });
  return () => {
    for (const [url, methods] of methodsByPath) {
      const missing = app.supportedMethods.filter((m) => !methods.has(m));
      if (missing.length === 0) continue;
      const allow = [...methods].sort().join(', ');
      app.route({
        method: missing,
        url,
        config: { is405: true },
        // Answer in onRequest, before the body is read, so no parse error can come first.
        onRequest: async (_req, reply) => {
          reply.header('Allow', allow);
          await sendError(reply, 'method_not_allowed', `This path allows ${allow}.`);
        },
        handler: async () => undefined,
      });
    }
  };
}
