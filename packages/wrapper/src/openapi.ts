// OpenAPI 3.1 for the wrapper: one operation per template route, its `data` schema from the
// catalogue (v1, the wrapper's default version).
import {
  METADATA_KEY_PATTERN,
  METADATA_KEYS_MAX,
  METADATA_VALUE_MAX,
  METADATA_VALUE_PATTERN,
} from '@mailsvc/contract/metadata';
import { getTemplate, jsonSchemaFor } from '@mailsvc/templates';
import { type WrapperErrorCode, wrapperErrors } from './errors.js';
import { type TemplateRoute, templateRoutes } from './routes.js';

const pascal = (id: string) => id.replace(/(^|-)([a-z0-9])/g, (_m, _d, c: string) => c.toUpperCase());

const errorRef = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorRef } },
});

const codesWith = (status: number) =>
  (Object.keys(wrapperErrors) as WrapperErrorCode[]).filter((c) => wrapperErrors[c].status === status);

export function buildOpenApi(): Record<string, unknown> {
  const schemas: Record<string, unknown> = { Error: errorSchema(), SendAccepted: sendAcceptedSchema() };
  const paths: Record<string, unknown> = {};
  for (const r of templateRoutes) {
    const { version } = getTemplate(r.templateId, 'v1');
    const { $id: _id, ...dataSchema } = jsonSchemaFor(version) as Record<string, unknown>;
    const dataName = `${pascal(r.templateId)}Data`;
    const envelopeName = `${pascal(r.templateId)}Request`;
    schemas[dataName] = dataSchema;
    schemas[envelopeName] = envelopeSchema(dataName);
    paths[r.path] = { post: routeOperation(r, envelopeName) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mailsvc template-route wrapper',
      version: '1.0.0',
      description:
        'One POST route per transactional template. Each route injects its templateId and forwards to the core POST /v1/send with a server-held API key.',
    },
    paths,
    components: {
      schemas,
      securitySchemes: {
        AppCheck: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Firebase-AppCheck',
          description:
            'Firebase App Check token; required when the wrapper runs with MAILSVC_REQUIRE_APP_CHECK=true.',
        },
      },
    },
  };
}

/** The error body, as the core answers it too (DESIGN.md §2). */
function errorSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['ok', 'error'],
    properties: {
      ok: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message', 'requestId'],
        properties: {
          code: { type: 'string', description: 'snake_case error code' },
          message: { type: 'string' },
          details: {
            type: 'array',
            items: {
              type: 'object',
              required: ['path', 'message'],
              properties: { path: { type: 'string' }, message: { type: 'string' } },
            },
          },
          requestId: { type: 'string', pattern: '^req_' },
        },
      },
    },
  };
}

function sendAcceptedSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['ok', 'status', 'messageId', 'idempotent'],
    properties: {
      ok: { const: true },
      status: { const: 'accepted' },
      messageId: { type: 'string', pattern: '^msg_' },
      idempotent: {
        type: 'boolean',
        description: 'true when this is a replay of an earlier idempotencyKey',
      },
    },
  };
}

/** The envelope of one route, its data by reference to the template's v1 schema. */
function envelopeSchema(dataName: string): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['to', 'data'],
    properties: {
      to: { type: 'string', format: 'email', description: 'Recipient address.' },
      data: { $ref: `#/components/schemas/${dataName}` },
      templateVersion: {
        type: 'string',
        default: 'v1',
        description: 'Template version; the data schema shown is v1.',
      },
      from: {
        type: 'string',
        format: 'email',
        description:
          'Verified sender address. Only when the wrapper runs with MAILSVC_ALLOW_SENDER_OVERRIDE=true.',
      },
      fromName: {
        type: 'string',
        maxLength: 120,
        description:
          'Sender display name: no line breaks, control, bidirectional or invisible characters. Only with MAILSVC_ALLOW_SENDER_OVERRIDE=true.',
      },
      replyTo: {
        type: 'string',
        format: 'email',
        description: 'Only with MAILSVC_ALLOW_SENDER_OVERRIDE=true.',
      },
      metadata: {
        type: 'object',
        maxProperties: METADATA_KEYS_MAX,
        propertyNames: { pattern: METADATA_KEY_PATTERN },
        additionalProperties: {
          type: 'string',
          maxLength: METADATA_VALUE_MAX,
          pattern: METADATA_VALUE_PATTERN,
        },
        description:
          'Your own keys and values, stored with the message and returned by the core API’s message reads (messages/get, messages/list); never put into the mail. At most 20 keys of letters, digits, _, . and - (1 to 40 characters), string values of at most 256 characters without control characters.',
      },
      idempotencyKey: {
        type: 'string',
        pattern: '^[\\x21-\\x7e]{1,120}$',
        description: 'Stable key for retry-safe sends; the same key and body within 24 hours sends once.',
      },
    },
  };
}

function routeOperation(r: TemplateRoute, envelopeName: string): Record<string, unknown> {
  return {
    operationId: r.operationId,
    summary: r.template.description,
    tags: [r.template.group],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${envelopeName}` } } },
    },
    responses: {
      '200': {
        description: 'Accepted by the core API (queued for delivery).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/SendAccepted' } } },
      },
      '400': errorResponse(
        '`invalid_request` (envelope), `invalid_from_name` or `invalid_template_data` (data, or a link off MAILSVC_ALLOWED_LINK_HOSTS), with details; or a core 400 such as `invalid_from_address`.',
      ),
      '401': errorResponse(
        codesWith(401)
          .map((c) => `\`${c}\``)
          .join(', '),
      ),
      '402': errorResponse('`trial_expired` (from the core).'),
      '403': errorResponse(
        '`origin_not_allowed`, or a core refusal such as `recipient_complained`, `monthly_quota_exceeded`, `app_paused`.',
      ),
      '404': errorResponse('`template_version_not_found` (from the core) or `not_found`.'),
      '409': errorResponse('`idempotency_key_reused` (from the core).'),
      '413': errorResponse('`payload_too_large`.'),
      '415': errorResponse('`unsupported_media_type`.'),
      '429': errorResponse('`rate_limited`; see `Retry-After`, `RateLimit-Policy` and `RateLimit`.'),
      '500': errorResponse(
        '`send_failed`: the core could not be reached or failed; with `Retry-After` (a transient failure and an `idempotencyKey` in the request), retry with the same key.',
      ),
    },
    security: [{}, { AppCheck: [] }],
  };
}
