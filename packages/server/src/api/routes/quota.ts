import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getQuota } from '../../domain/quota/get-quota.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

export function quotaRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'getQuota', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => ({ ok: true, quota: await getQuota(deps, authOf(req)) }),
  });
}
