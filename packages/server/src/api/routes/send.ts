import type { SendBatchRequest, SendRequest } from '@mailsvc/contract/api';
import { getTemplate } from '@mailsvc/templates';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { sendBatch } from '../../domain/send/send-batch.js';
import { sendEmail } from '../../domain/send/send-email.js';
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
  /** When the handler began, and what it answered unless it threw (accepted or replayed). */
  const handled = new WeakMap<FastifyRequest, { started: number; result?: 'accepted' | 'replayed' }>();
  apiRoute(app, 'sendEmail', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => {
      const state: { started: number; result?: 'accepted' | 'replayed' } = { started: performance.now() };
      handled.set(req, state);
      const sent = await sendEmail(
        deps,
        authOf(req),
        req.body as SendRequest,
        req.headers['idempotency-key'],
      );
      state.result = sent.idempotent ? 'replayed' : 'accepted';
      return { ok: true, ...sent };
    },
    // Every answer is counted, also the refusals made before the handler (authentication, the
    // rate limit, the trial and access checks, the body's size, media type and schema); the
    // duration from the handler's start, when it ran.
    onResponse: async (req) => {
      const state = handled.get(req);
      const result = state?.result ?? answeredErrorCode(req) ?? 'internal';
      deps.metrics.accepts.inc({ category: categoryOf(req.body), result });
      if (state) deps.metrics.acceptSeconds.observe({ result }, (performance.now() - state.started) / 1000);
    },
  });
  apiRoute(app, 'sendBatch', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => {
      const body = req.body as SendBatchRequest;
      const answer = await sendBatch(deps, authOf(req), body, req.headers['idempotency-key']);
      // Each item counts as a send in the accept metrics, with its own result.
      for (const [i, r] of answer.results.entries())
        deps.metrics.accepts.inc({
          category: categoryOf(body.items[i]),
          result: r.status === 'refused' ? r.error.code : answer.idempotent ? 'replayed' : 'accepted',
        });
      return { ok: true, ...answer };
    },
  });
}
