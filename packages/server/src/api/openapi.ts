// The OpenAPI 3.1 document of the core, made by @fastify/swagger from the routes' contracts
// (@mailsvc/contract/api), with the error catalogue as components: each operation lists, per
// status, the error codes it declares, with an example body for each. Served at GET
// /openapi.json, written to docs/openapi.json by `npm run docs`, rendered at /docs (Scalar,
// every asset served from here).
import swagger from '@fastify/swagger';
import {
  type Operation,
  type OperationId,
  operations,
  WEBHOOK_EVENT_TYPES,
  webhookPayloadSchema,
} from '@mailsvc/contract/api';
import { type CoreErrorCode, coreErrors, ErrorBody } from '@mailsvc/contract/errors';
import { IDEMPOTENCY_KEY_PATTERN } from '@mailsvc/contract/http';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.js';
import type { Deps } from '../domain/deps.js';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PREFIX = '/docs';

const API_VERSION = '1.0.0';

const DESCRIPTION = [
  'Template-based transactional email: name a template, pass its data; mailsvc validates it,',
  'queues it durably and delivers it. Every request carries `Authorization: Bearer <API key>`.',
  'Errors share one body (`ErrorBody`) and a code from the catalogue (`ErrorCode`);',
  'every answer has an `X-Request-Id`.',
].join(' ');

type Json = Record<string, unknown>;

function errorExample(code: CoreErrorCode): Json {
  return {
    ok: false,
    error: { code, message: coreErrors[code].description, requestId: 'req_01M81C1XJB0000000000000000' },
  };
}

/** Per status, the error responses an operation declares, each code an example. */
function errorResponses(codes: readonly CoreErrorCode[]): Record<string, Json> {
  const byStatus = new Map<number, CoreErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = coreErrors[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${coreErrors[c].description}`).join('\n\n'),
      ...(status === 429 || status === 503
        ? { headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } } }
        : {}),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorBody' },
          examples: Object.fromEntries(list.map((c) => [c, { value: errorExample(c) }])),
        },
      },
    };
  }
  return out;
}

/** A schema with every `discriminator` keyword left out (a copy). */
function withoutDiscriminators(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDiscriminators);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== 'discriminator')
      .map(([key, value]) => [key, withoutDiscriminators(value)]),
  );
}

/** ErrorBody with its `code` a reference to the catalogue (ErrorCode), so generated clients type it. */
function errorBodyDocument(): Json {
  const body = structuredClone(ErrorBody) as unknown as Json;
  const error = (body.properties as Record<string, Json>).error!;
  (error.properties as Record<string, Json>).code = { $ref: '#/components/schemas/ErrorCode' };
  return body;
}

/** Completes what @fastify/swagger made from the routes: errors, examples, headers, security. */
function completeDocument(doc: Json): Json {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      const id = operation.operationId as OperationId | undefined;
      if (!id || !(id in operations)) continue;
      const op: Operation = operations[id];
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      delete responses['4XX'];
      delete responses['5XX'];
      delete responses['4xx'];
      delete responses['5xx'];
      const ok = responses['200'] as Json | undefined;
      if (ok && op.example) {
        const content = (ok.content as Record<string, Json>)['application/json']!;
        content.example = op.example.response;
      }
      Object.assign(responses, errorResponses(op.errors ?? []));
      operation.responses = responses;
      // An SNS message carries its own signature (checked against Amazon's certificate): no scheme.
      operation.security =
        op.auth === 'webhookSignature'
          ? [{ webhookSignature: [] }]
          : op.auth === 'snsSignature'
            ? []
            : [{ apiKey: [] }];
      const body = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      const media = body?.['application/json'];
      if (media) {
        if (op.example && 'body' in op.example) media.example = op.example.body;
        // Ajv's discriminator only words a wrong filter's error at its own path; oneOf alone says
        // the same, and a discriminator over inline schemas is not one OpenAPI tools can follow.
        media.schema = withoutDiscriminators(media.schema);
        if (op.bodyRules) media.schema = { ...(media.schema as Json), ...op.bodyRules };
      }
      if ('headers' in op) {
        operation.parameters = [
          ...((operation.parameters as Json[] | undefined) ?? []),
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Retry-safe sends: the same key with the same request within 24 hours returns the original answer (`idempotent: true`); with a different request, 409 `idempotency_key_reused`.',
            schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN, maxLength: 120 },
          },
        ];
      }
    }
  }
  doc.webhooks = webhooksDocument();
  return doc;
}

/**
 * OpenAPI 3.1's `webhooks`: one entry per event type, the POST mailsvc makes to an endpoint, its
 * body the type's payload schema and its headers the Standard Webhooks ones (docs/webhooks.md).
 */
function webhooksDocument(): Json {
  const header = (description: string) => ({ required: true, schema: { type: 'string' }, description });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: `The ${type} event`,
          // signed by mailsvc, checked by the receiver: no scheme of this API applies
          security: [],
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              ...header('the event’s id, the same on every retry and replay (evt_…)'),
            },
            { name: 'webhook-timestamp', in: 'header', ...header('the attempt’s time, Unix seconds') },
            {
              name: 'webhook-signature',
              in: 'header',
              ...header(
                '`v1,<base64 HMAC-SHA256 of id.timestamp.body>` under the endpoint’s secret; two, space-separated, for 24 hours after a rotation',
              ),
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: JSON.parse(JSON.stringify(webhookPayloadSchema(type))) },
            },
          },
          responses: {
            '200': {
              description:
                'Any 2xx: delivered. Anything else (a redirect too) is retried on the schedule; 410 disables the endpoint.',
            },
          },
        },
      },
    ]),
  );
}

/** Registers the OpenAPI generator; must run before the routes are declared. */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'mailsvc core API',
        version: API_VERSION,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: '`msk_<keyId>_<secret>`' },
          webhookSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'webhook-signature',
            description:
              'Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds, within 5 minutes) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`) under the environment’s intake secret (`mailsvc admin events create-secret`).',
          },
        },
        schemas: {
          ErrorBody: errorBodyDocument(),
          ErrorCode: {
            type: 'string',
            enum: Object.keys(coreErrors),
            description: Object.entries(coreErrors)
              .map(([code, e]) => `- \`${code}\` (${e.status}): ${e.description}`)
              .join('\n'),
          },
        },
      },
    },
    // Only the operations of the contract: health, admin, dev pages and 405 answers are not part of it.
    hideUntagged: true,
    transformObject: (documentObject) =>
      completeDocument((documentObject as { openapiObject: Json }).openapiObject) as never,
  });
}

/** The paths Scalar's plugin serves under DOCS_PREFIX (GET, and HEAD with them). */
const SCALAR_PATHS = [DOCS_PREFIX, `${DOCS_PREFIX}/`, `${DOCS_PREFIX}/js/scalar.js`];

async function scalarReference(): Promise<FastifyInstance> {
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  const reference = Fastify({ logger: false });
  await reference.register(scalar, {
    routePrefix: DOCS_PREFIX,
    configuration: {
      pageTitle: 'mailsvc API reference',
      url: OPENAPI_PATH,
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
      // The bearer scheme is the only one: selected, so "Test request" asks for the key.
      authentication: { preferredSecurityScheme: 'apiKey' },
      // Scalar's hosted features (AI chat, MCP, sharing, deploy) call its servers: off.
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      // Requests from the page's own client go straight to this server, never through a proxy.
      proxyUrl: '',
    } as never,
  });
  await reference.ready();
  return reference;
}

/** GET /openapi.json and the reference at /docs (after the routes, so the document is complete). */
export async function registerOpenApiRoutes(app: FastifyInstance): Promise<void> {
  let document: string | undefined;
  app.get(OPENAPI_PATH, async (_req, reply) => {
    document ??= JSON.stringify(app.swagger());
    return reply
      .type('application/json; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(document);
  });
  await app.register(async (scope) => {
    // The page and its script come from this server; nothing is fetched from elsewhere.
    scope.addHook('onSend', async (_req, reply) => {
      reply.header(
        'content-security-policy',
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
    });
    // Scalar's plugin is 4 MB of script (about 55 MB resident once loaded): it is loaded, into a
    // Fastify of its own, when the reference is first asked for, not by every process at start.
    let reference: Promise<FastifyInstance> | undefined;
    for (const url of SCALAR_PATHS) {
      scope.get(url, async (req, reply) => {
        reference ??= scalarReference().catch((err) => {
          reference = undefined;
          throw err;
        });
        const res = await (await reference).inject({ method: 'GET', url: req.url });
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined && name !== 'content-length' && name !== 'connection')
            reply.header(name, value);
        }
        return reply.code(res.statusCode).send(res.rawPayload);
      });
    }
  });
}

/**
 * docs/openapi.json: the document as a server with these settings serves it. Only the routes'
 * contracts are needed, not a database: the app is built on settings and a silent logger alone
 * (no route runs).
 */
export async function renderOpenApiDocument(config: Config): Promise<string> {
  const { buildApp } = await import('./app.js');
  const app = await buildApp({ config, log: pino({ level: 'silent' }) } as unknown as Deps, {});
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
