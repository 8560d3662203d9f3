import type { SendRequest } from '@mailsvc/contract/api';
import { getTemplate } from '@mailsvc/templates';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { sendEmail } from '../../domain/send/send-email.js';
import { ApiError } from '../../errors.js';
import { authOf } from '../auth-hook.js';
import { answeredErrorCode } from '../errors.js';
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
  /** What the handler answered: accepted or replayed (an error is read from the answer). */
  const outcomes = new WeakMap<FastifyRequest, 'accepted' | 'replayed'>();
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
        outcomes.set(req, result as 'accepted' | 'replayed');
        return { ok: true, ...sent };
      } catch (err) {
        if (err instanceof ApiError) result = err.code;
        throw err;
      } finally {
        deps.metrics.acceptSeconds.observe({ result }, (performance.now() - started) / 1000);
      }
    },
    // Every answer is counted, also the refusals made before the handler (authentication, the
    // rate limit, the trial and access checks, the body's size, media type and schema).
    onResponse: async (req) => {
      const result = outcomes.get(req) ?? answeredErrorCode(req) ?? 'internal';
      deps.metrics.accepts.inc({ category: categoryOf(req.body), result });
    },
  });
}
