// Route = contract + thin handler (STYLE.md): a /v1 route is registered from its operation in
// @mailsvc/contract/api — method, path, body and response schemas (the answer is serialised
// through the response schema, so no field leaks), operationId and the error codes it may answer.
import { type OperationId, operations } from '@mailsvc/contract/api';
import type { CoreErrorCode } from '@mailsvc/contract/errors';
import { ErrorBody } from '@mailsvc/contract/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessCheck } from '../domain/auth/authenticate.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract's operation a route serves. */
    operationId?: OperationId;
    /** The error codes the route declares (its operation's). */
    declaredErrors?: ReadonlySet<CoreErrorCode>;
  }
}

export function apiRoute(
  app: FastifyInstance,
  id: OperationId,
  opts: { access: readonly AccessCheck[]; handler: (req: FastifyRequest) => Promise<unknown> },
): void {
  const op = operations[id];
  if (!op.isBuilt) throw new Error(`operation ${id} is not built`);
  app.route({
    method: op.method,
    url: op.path,
    config: {
      auth: 'apiKey',
      access: opts.access,
      jsonBody: op.method === 'POST',
      operationId: id,
      declaredErrors: new Set(op.errors),
    },
    schema: {
      operationId: id,
      summary: op.summary,
      tags: [op.sdk.split('.')[0]!],
      ...('body' in op && { body: op.body }),
      response: { 200: op.response, '4xx': ErrorBody, '5xx': ErrorBody },
    },
    handler: opts.handler,
  });
}
