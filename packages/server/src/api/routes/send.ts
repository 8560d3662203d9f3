import type { SendRequest } from '@mailsvc/contract/api';
import { getTemplate } from '@mailsvc/templates';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { sendEmail } from '../../domain/send/send-email.js';
import { ApiError } from '../../errors.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

/** The template's category for the accept metrics; `unknown` when the request names no template we have. */
function categoryOf(body: unknown): string {
  const id = (body as { templateId?: unknown } | null)?.templateId;
  if (typeof id !== 'string') return 'unknown';
  try {
    return getTemplate(id).template.category;
  } catch {
    return 'unknown';
  }
}

export function sendRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'sendEmail', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => {
      const started = performance.now();
      let result = 'internal';
      try {
        const sent = await sendEmail(
          deps,
          authOf(req),
          req.body as SendRequest,
          req.headers['idempotency-key'],
        );
        result = sent.idempotent ? 'replayed' : 'accepted';
        return { ok: true, ...sent };
      } catch (err) {
        if (err instanceof ApiError) result = err.code;
        throw err;
      } finally {
        deps.metrics.accepts.inc({ category: categoryOf(req.body), result });
        deps.metrics.acceptSeconds.observe({ result }, (performance.now() - started) / 1000);
      }
    },
  });
}
