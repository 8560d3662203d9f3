import type { CreateKeyRequest, RevokeKeyRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createKey, listKeys, revokeKey } from '../../domain/keys/manage-keys.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

const ACCESS = ['trial', 'project', 'environment'] as const;

/** POST /v1/keys/create, list, revoke (DESIGN.md §12): full keys only (the contract's scopes). */
export function keyRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'createKey', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await createKey(deps, authOf(req), req.body as CreateKeyRequest)),
    }),
  });
  apiRoute(app, 'listKeys', {
    access: ACCESS,
    handler: async (req) => ({ ok: true, ...(await listKeys(deps, authOf(req))) }),
  });
  apiRoute(app, 'revokeKey', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await revokeKey(deps, authOf(req), req.body as RevokeKeyRequest)),
    }),
  });
}
