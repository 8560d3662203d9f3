import type { SendRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { sendEmail } from '../../domain/send/send-email.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

export function sendRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'sendEmail', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => ({
      ok: true,
      ...(await sendEmail(deps, authOf(req), req.body as SendRequest, req.headers['idempotency-key'])),
    }),
  });
}
