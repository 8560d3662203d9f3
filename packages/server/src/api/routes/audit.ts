import type { ListAuditEventsRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import { listAuditEvents } from '../../domain/audit/list-audit-events.js';
import type { Deps } from '../../domain/deps.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

/** POST /v1/audit/list (DESIGN.md §12): full keys only (the contract's default scope). */
export function auditRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'listAuditEvents', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => ({
      ok: true,
      ...(await listAuditEvents(deps, authOf(req), req.body as ListAuditEventsRequest)),
    }),
  });
}
