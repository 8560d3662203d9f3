import type {
  AddSuppressionRequest,
  ListSuppressionsRequest,
  RemoveSuppressionRequest,
} from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { addSuppression } from '../../domain/suppressions/add-suppression.js';
import { listSuppressions } from '../../domain/suppressions/list-suppressions.js';
import { removeSuppression } from '../../domain/suppressions/remove-suppression.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

const ACCESS = ['trial', 'project', 'environment'] as const;

/** POST /v1/suppressions/list, add, remove (DESIGN.md §12): full keys only (the contract's default). */
export function suppressionRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'listSuppressions', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await listSuppressions(deps, authOf(req), req.body as ListSuppressionsRequest)),
    }),
  });
  apiRoute(app, 'addSuppression', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await addSuppression(deps, authOf(req), req.body as AddSuppressionRequest)),
    }),
  });
  apiRoute(app, 'removeSuppression', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await removeSuppression(deps, authOf(req), req.body as RemoveSuppressionRequest)),
    }),
  });
}
