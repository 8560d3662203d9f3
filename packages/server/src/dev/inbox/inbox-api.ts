// The dev inbox's JSON API for end-to-end tests (docs/dev-inbox.md): list, latest, one message,
// delete one or the matching ones. Queries are read strictly (inbox-query.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonBodyGuard } from '../../api/json-body.js';
import {
  type CapturedEntry,
  deleteAllCaptured,
  deleteCaptured,
  deleteMatchingCaptured,
  findCaptured,
  listCaptured,
  readCaptured,
} from '../../delivery/transports/capture.js';
import { ApiError } from '../../errors.js';
import { DEV_API_HEADERS, requireLoopbackHost, requireSameOrigin } from '../dev-access.js';
import { API_FILTERS, type ApiParameter, matchesFilter, parseApiQuery } from './inbox-query.js';
import { readInboxMessage } from './read-message.js';

/** The DELETE routes take no body; one that is not JSON (a form post) is refused. */
const refuseNonJsonBody = jsonBodyGuard({
  isBodyOptional: true,
  message: 'The dev inbox takes no body; if one is sent, it must be JSON.',
});

const loopback = { onRequest: requireLoopbackHost };
/** The checks of every route that changes something (the Webhooks tab's DELETE too). */
export const changes = { onRequest: [requireLoopbackHost, requireSameOrigin, refuseNonJsonBody] };

const notFound = (id: string) =>
  new ApiError('message_not_found', `No captured message ${id.slice(0, 60)} (it may have been deleted).`);

/** The API's query, read strictly (inbox-query.ts); a bad one is 400 invalid_request. */
export function apiQuery(query: unknown, allowed: readonly ApiParameter[]) {
  const parsed = parseApiQuery(query, allowed);
  if (!parsed.ok) throw new ApiError('invalid_request', 'The query is not valid.', parsed.problems);
  return parsed;
}

/** A captured message as the API answers it; null when its file is gone. */
async function apiMessage(dir: string, entry: CapturedEntry) {
  const raw = await readCaptured(dir, entry.messageId);
  if (!raw) return null;
  const m = await readInboxMessage(entry.messageId, raw, entry);
  return {
    id: m.id,
    capturedAt: entry.capturedAt,
    from: m.from,
    to: entry.to,
    subject: m.subject,
    templateId: entry.templateId,
    tenantId: entry.tenantId ?? null,
    projectId: entry.projectId ?? null,
    text: m.text,
    html: m.html,
    links: m.links,
    codes: m.codes,
  };
}

/** GET /dev/inbox/api/messages, …/latest and …/:id. */
export function inboxApiReadRoutes(app: FastifyInstance, dir: string) {
  app.get('/dev/inbox/api/messages', loopback, async (req, reply) => {
    const parsed = apiQuery(req.query, [...API_FILTERS, 'limit']);
    const entries = await listCaptured(dir, { limit: parsed.limit, matches: matchesFilter(parsed.filter) });
    const messages = (await Promise.all(entries.map((e) => apiMessage(dir, e)))).filter((m) => m !== null);
    return reply.headers(DEV_API_HEADERS).send({ ok: true, messages });
  });

  app.get('/dev/inbox/api/messages/latest', loopback, async (req, reply) => {
    const parsed = apiQuery(req.query, API_FILTERS);
    const [entry] = await listCaptured(dir, { limit: 1, matches: matchesFilter(parsed.filter) });
    const message = entry ? await apiMessage(dir, entry) : null;
    if (!message) {
      const which = parsed.filter.to ? ` to ${parsed.filter.to}` : '';
      throw new ApiError(
        'message_not_found',
        `No captured message${which} matches (yet: delivery takes a moment after the send is accepted).`,
      );
    }
    return reply.headers(DEV_API_HEADERS).send({ ok: true, message });
  });

  app.get('/dev/inbox/api/messages/:id', loopback, async (req, reply) => {
    apiQuery(req.query, []);
    const { id } = req.params as { id: string };
    const entry = await findCaptured(dir, id);
    const message = entry ? await apiMessage(dir, entry) : null;
    if (!message) throw notFound(id);
    return reply.headers(DEV_API_HEADERS).send({ ok: true, message });
  });
}

/** DELETE /dev/inbox/api/messages/:id and /dev/inbox/api/messages; any other API path is 404. */
export function inboxApiChangeRoutes(app: FastifyInstance, dir: string) {
  app.delete('/dev/inbox/api/messages/:id', changes, async (req, reply) => {
    apiQuery(req.query, []);
    const { id } = req.params as { id: string };
    if (!(await deleteCaptured(dir, id))) throw notFound(id);
    return reply.headers(DEV_API_HEADERS).send({ ok: true, deleted: 1 });
  });

  // With filters, only the matching messages (a parallel test cleans up its own mail); without,
  // every message and the temporary files a crash left behind.
  app.delete('/dev/inbox/api/messages', changes, async (req, reply) => {
    const { filter } = apiQuery(req.query, API_FILTERS);
    const deleted =
      Object.keys(filter).length === 0
        ? await deleteAllCaptured(dir)
        : await deleteMatchingCaptured(dir, matchesFilter(filter));
    return reply.headers(DEV_API_HEADERS).send({ ok: true, deleted });
  });

  // Any other path under /dev/inbox/api is the service's unknown path (404 not_found, JSON), with
  // every method: not the HTML page of a message whose id would be "api" (/dev/inbox/:id).
  const unknownApiPath = {
    method: app.supportedMethods,
    onRequest: requireLoopbackHost,
    handler: async (_req: FastifyRequest, reply: FastifyReply) => reply.callNotFound(),
  };
  app.route({ ...unknownApiPath, url: '/dev/inbox/api' });
  app.route({ ...unknownApiPath, url: '/dev/inbox/api/*' });
}
