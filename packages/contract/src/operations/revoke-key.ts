// POST /v1/keys/revoke: revokes an API key of the environment (DESIGN.md §12); it stops working
// on every replica within 5 seconds.
import { type Static, Type } from '@sinclair/typebox';
import { API_KEY_EXAMPLE, ApiKeyInfo, KeyId } from './shared/api-key.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const RevokeKeyRequest = Type.Object({ keyId: KeyId }, { additionalProperties: false });
export type RevokeKeyRequest = Static<typeof RevokeKeyRequest>;

export const RevokeKeyResponse = Type.Object(
  { ok: Type.Literal(true), key: ApiKeyInfo },
  { additionalProperties: false },
);
export type RevokeKeyResponse = Static<typeof RevokeKeyResponse>;

export const revokeKey = {
  method: 'POST',
  path: '/v1/keys/revoke',
  sdk: 'keys.revoke',
  summary: 'Revoke an API key of the environment (full keys only)',
  body: RevokeKeyRequest,
  response: RevokeKeyResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'key_not_found'],
  example: {
    body: { keyId: 'key_01M81C1XJB7Y4KHB01G4B1P0M5' },
    response: {
      ok: true,
      key: { ...API_KEY_EXAMPLE, status: 'revoked', revokedAt: '2026-11-23T09:00:00.000Z' },
    },
  },
} as const satisfies Operation;
