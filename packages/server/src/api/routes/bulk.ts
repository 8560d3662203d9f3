import type { BulkSendRequest, GetBulkSendRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import { getBulkSend } from '../../domain/bulk/get-bulk-send.js';
import { previewSendToContacts, sendToContacts } from '../../domain/bulk/send-to-contacts.js';
import type { Deps } from '../../domain/deps.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

const ACCESS = ['trial', 'project', 'environment'] as const;

export function bulkRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'sendToContacts', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await sendToContacts(
        deps,
        authOf(req),
        req.body as BulkSendRequest,
        req.headers['idempotency-key'],
      )),
    }),
  });
  apiRoute(app, 'previewSendToContacts', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await previewSendToContacts(deps, authOf(req), req.body as BulkSendRequest)),
    }),
  });
  apiRoute(app, 'getBulkSend', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await getBulkSend(deps, authOf(req), req.body as GetBulkSendRequest)),
    }),
  });
}
