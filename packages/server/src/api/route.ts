// Route = contract + thin handler (STYLE.md): a /v1 route is registered from its operation in
// @mailsvc/contract/api — method, path, body and response schemas (the answer is serialised
// through the response schema, so no field leaks), operationId and the error codes it may answer.
import { type Operation, type OperationId, operations } from '@mailsvc/contract/api';
import type { CoreErrorCode } from '@mailsvc/contract/errors';
import { ErrorBody } from '@mailsvc/contract/errors';
import { findSizeProblems } from '@mailsvc/contract/size-bounds';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessCheck } from '../domain/auth/authenticate.js';
import { ApiError } from '../errors.js';

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
    /**
     * The handler runs even when the body fails its schema, with the problems in
     * req.validationError: for an operation that reports its own problems with the schema's.
     */
    attachValidation?: boolean;
    /** After the answer, whatever gave it (the hooks before the handler too). */
    onResponse?: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  },
): void {
  const op: Operation = operations[id];
  const isApiKey = (op.auth ?? 'apiKey') === 'apiKey';
  if (isApiKey !== (opts.access !== undefined))
    throw new Error(`operation ${id}: access checks go with API keys`);
  app.route({
    method: op.method,
    url: op.path,
    config: {
      ...(isApiKey && { auth: 'apiKey' as const, access: opts.access, scopes: op.scopes ?? ['full'] }),
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
    preValidation: async (req: FastifyRequest) => {
      await opts.preValidation?.(req);
      if (op.body) refuseOversizedBody(op.body, req.body, op.invalidRequestMessage);
    },
    handler: opts.handler,
    ...(opts.attachValidation && { attachValidation: true }),
    ...(opts.onResponse && { onResponse: opts.onResponse }),
  });
}

/**
 * Sizes before items: the schema validation lists every problem, so it must never see an array or
 * object larger than its schema allows (contract/src/size-bounds.ts). Every route with a body
 * schema runs this in preValidation.
 */
export function refuseOversizedBody(
  schema: unknown,
  body: unknown,
  message = 'The request body is not valid.',
) {
  const problems = findSizeProblems(schema, body);
  if (problems.length > 0) throw new ApiError('invalid_request', message, problems);
}
