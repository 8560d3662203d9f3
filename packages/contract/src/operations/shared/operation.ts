// What the contract declares of each operation: route, SDK method, schemas, errors, example.
import type { TSchema } from '@sinclair/typebox';
import type { CoreErrorCode } from '../../errors.js';
import type { KeyScope } from './api-key.js';

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  /**
   * How the caller is authenticated: an API key (default); a Standard Webhooks signature with the
   * environment's intake secret; an Amazon SNS signature plus a registered topic.
   */
  auth?: 'apiKey' | 'webhookSignature' | 'snsSignature';
  /** API-key operations: the key scopes that may call it (default: full keys only). */
  scopes?: readonly KeyScope[];
  /** Request media types when not only application/json (SNS posts text/plain). */
  contentTypes?: readonly string[];
  /** The SDK method, `group.method` on the client. */
  sdk: string;
  summary: string;
  body?: TSchema;
  headers?: TSchema;
  response?: TSchema;
  /** Every error code the operation can answer; a test fails on any other. */
  errors?: readonly CoreErrorCode[];
  /** An example request body and response, for the reference. */
  example?: { body?: unknown; response: unknown };
  /** The message of a 400 invalid_request for a body that fails its schema, when the seed words it. */
  invalidRequestMessage?: string;
  /**
   * What a body needs beyond each property's own schema (one of several properties, one that
   * another requires), as JSON Schema 2020-12 keywords merged into the body's schema in the OpenAPI
   * document, so a client generated from it builds only requests the service takes. The use-case
   * checks the same combinations with its own wording; test/openapi-client.test.ts keeps the two
   * equal (a body the document refuses is refused with 400, and one it takes is not).
   */
  bodyRules?: Readonly<Record<string, unknown>>;
}
