// POST /v1/keys/create: a new API key of the caller's environment (DESIGN.md §12), shown once.
import { type Static, Type } from '@sinclair/typebox';
import { UNSAFE_DISPLAY_CHARACTERS } from '../display-name.js';
import { API_KEY_EXAMPLE, ApiKeyInfo, KeyScopeSchema, TemplateCategories } from './shared/api-key.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const KEY_NAME_MAX = 100;

export const CreateKeyRequest = Type.Object(
  {
    scope: KeyScopeSchema,
    templateCategories: Type.Optional(
      Type.Unsafe<Static<typeof TemplateCategories>>({
        ...TemplateCategories,
        description: 'send keys only: the template categories it may send (default: every category)',
      }),
    ),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: KEY_NAME_MAX,
        pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
        description:
          'what the key is for, e.g. "wrapper"; one line, no control, bidirectional or invisible characters',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateKeyRequest = Static<typeof CreateKeyRequest>;

export const CreateKeyResponse = Type.Object(
  {
    ok: Type.Literal(true),
    key: ApiKeyInfo,
    apiKey: Type.String({ description: 'the whole key, msk_…: shown here once, never again' }),
  },
  { additionalProperties: false },
);
export type CreateKeyResponse = Static<typeof CreateKeyResponse>;

export const createKey = {
  method: 'POST',
  path: '/v1/keys/create',
  sdk: 'keys.create',
  summary: 'Create an API key of the environment, full or send-only (shown once; full keys only)',
  body: CreateKeyRequest,
  response: CreateKeyResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  bodyRules: {
    description: 'templateCategories only with scope send',
    if: { properties: { scope: { const: 'full' } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
    then: { not: { required: ['templateCategories'] } },
  },
  example: {
    body: { scope: 'send', name: 'wrapper (send only)' },
    response: {
      ok: true,
      key: API_KEY_EXAMPLE,
      apiKey: 'msk_01M81C1XJB7Y4KHB01G4B1P0M5_GagDDq0cN1vWkD0Zr5o2uIcrt7yq8kkG1yXx7Qa',
    },
  },
} as const satisfies Operation;
