// Route = contract + thin handler (STYLE.md): a /v1 route is registered from its operation in
// @mailsvc/contract/api — method, path, body and response schemas (the answer is serialised
// through the response schema, so no field leaks), operationId and the error codes it may answer.
import { type Operation, type OperationId, operations } from '@mailsvc/contract/api';
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
  opts: {
    /** API-key operations: the access checks after authentication. */
    access?: readonly AccessCheck[];
    /** Signature-authenticated operations: verifies the parsed body's signature before validation. */
    preValidation?: (req: FastifyRequest) => Promise<void>;
    handler: (req: FastifyRequest) => Promise<unknown>;
  },
): void {
  const op: Operation = operations[id];
  if (!op.isBuilt) throw new Error(`operation ${id} is not built`);
  const isApiKey = (op.auth ?? 'apiKey') === 'apiKey';
  if (isApiKey !== (opts.access !== undefined))
    throw new Error(`operation ${id}: access checks go with API keys`);
  app.route({
    method: op.method,
    url: op.path,
    config: {
      ...(isApiKey && { auth: 'apiKey' as const, access: opts.access }),
      // Operations taking other media types check them in their own content-type parser.
      jsonBody: op.method === 'POST' && op.contentTypes === undefined,
      operationId: id,
      declaredErrors: new Set(op.errors),
    },
    schema: {
      operationId: id,
      summary: op.summary,
      tags: [op.sdk.split('.')[0]!],
      ...(op.body && { body: op.body }),
      ...(op.contentTypes && { consumes: [...op.contentTypes] }),
      response: { 200: op.response, '4xx': ErrorBody, '5xx': ErrorBody },
    },
    ...(opts.preValidation && { preValidation: opts.preValidation }),
    handler: opts.handler,
  });
}
