// POST /v1/keys/list: the environment's API keys (DESIGN.md §12), never their secrets.
import { type Static, Type } from '@sinclair/typebox';
import { API_KEY_EXAMPLE, ApiKeyInfo } from './shared/api-key.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const ListKeysRequest = Type.Object({}, { additionalProperties: false, description: 'no fields: {}' });
export type ListKeysRequest = Static<typeof ListKeysRequest>;

export const ListKeysResponse = Type.Object(
  {
    ok: Type.Literal(true),
    keys: Type.Array(ApiKeyInfo, {
      description: 'every key of the environment, revoked ones too, oldest first',
    }),
  },
  { additionalProperties: false },
);
export type ListKeysResponse = Static<typeof ListKeysResponse>;

export const listKeys = {
  method: 'POST',
  path: '/v1/keys/list',
  sdk: 'keys.list',
  summary: 'The environment’s API keys: scope, name, created and last used (full keys only)',
  body: ListKeysRequest,
  response: ListKeysResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: { body: {}, response: { ok: true, keys: [API_KEY_EXAMPLE] } },
} as const satisfies Operation;
