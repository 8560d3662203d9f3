// The dev inbox (like Mailpit): messages stored by the capture transport, served only by
// `mailsvc start` when no MAILSVC_SMTP_URL is set, and only to requests addressed to a loopback
// name (dev-access.ts). Pages, a live event stream, and a JSON API for end-to-end tests
// (docs/dev-inbox.md).
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findDkimPublicKey } from '../../db/repositories/sending-domains.js';
import type { Db } from '../../db/schema.js';
import {
  type CapturedEntry,
  capturedIds,
  deleteAllCaptured,
  deleteCaptured,
  deleteMatchingCaptured,
  findCaptured,
  type InboxChange,
  listCaptured,
  readCaptured,
  readCapturedEntries,
  watchInbox,
} from '../../delivery/transports/capture.js';
import { checkDkim, DkimCheckError } from '../../dev-inbox/check-dkim.js';
import {
  API_FILTERS,
  type ApiParameter,
  matchesFilter,
  PAGE_LIMIT,
  parseApiQuery,
  parsePageQuery,
} from '../../dev-inbox/inbox-query.js';
import { messageFacts, readInboxMessage } from '../../dev-inbox/read-message.js';
import { maskEmail } from '../../domain/email.js';
import { ApiError } from '../../errors.js';
import { jsonBodyGuard } from '../json-body.js';
import {
  renderInboxListPage,
  renderInboxMessagePage,
  renderInboxNotFoundPage,
} from '../pages/dev-inbox-page.js';
import { INBOX_SCRIPT } from '../pages/dev-inbox-script.js';
import { DEV_PAGE_HEADERS, requireLoopbackHost, requireSameOrigin } from './dev-access.js';

// Scripts: only /dev/inbox/app.js (same origin); forms: only the filter form (GET, same origin).
// The message's HTML is in a frame sandboxed without allow-scripts (DEV_PAGE_HEADERS says more).
const API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).headers(DEV_PAGE_HEADERS).type('text/html; charset=utf-8').send(body);

/** The DELETE routes take no body; one that is not JSON (a form post) is refused. */
const refuseNonJsonBody = jsonBodyGuard({
  isBodyOptional: true,
  message: 'The dev inbox takes no body; if one is sent, it must be JSON.',
});

export interface DevInboxOptions {
  dir: string;
  /** For the Checks tab's DKIM result (the sending domains' public keys); without it, not checked. */
  db?: Db;
}

/** The domain of an address as a header writes it (`a@b.test`, `"A" <a@b.test>`), or null. */
const addressDomain = (address: string) => /@([^>\s@]+)>?\s*$/.exec(address)?.[1] ?? null;

/** The Checks tab's DKIM cell when the check threw: which of the two it was, and what to do. */
function dkimCheckFailure(err: unknown): string {
  if (err instanceof DkimCheckError && err.reason === 'database')
    return 'Not checked: the database did not answer when asked for the sending domain’s public key; reload to retry.';
  const why = err instanceof Error ? err.message : String(err);
  return `Not checked: the DKIM verifier could not read this message (${why.slice(0, 200)}); reloading will not change that.`;
}

export function devInboxRoutes(app: FastifyInstance, opts: DevInboxOptions) {
  const { dir } = opts;
  const loopback = { onRequest: requireLoopbackHost };
  const changes = { onRequest: [requireLoopbackHost, requireSameOrigin, refuseNonJsonBody] };

  const apiMessage = async (entry: CapturedEntry) => {
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
  };
  const notFound = (id: string) =>
    new ApiError('message_not_found', `No captured message ${id.slice(0, 60)} (it may have been deleted).`);
  /** The API's query, read strictly (inbox-query.ts); a bad one is 400 invalid_request. */
  const apiQuery = (query: unknown, allowed: readonly ApiParameter[]) => {
    const parsed = parseApiQuery(query, allowed);
    if (!parsed.ok) throw new ApiError('invalid_request', 'The query is not valid.', parsed.problems);
    return parsed;
  };

  // ---- pages

  // Reads only what it shows: index entries newest first (ids are time-ordered), until the page is
  // full and one more match says there are more. The count comes from the directory listing; the
  // filters' choices from the newest PAGE_LIMIT messages. A filter reads as far as it must.
  app.get('/dev/inbox', loopback, async (req, reply) => {
    const filter = parsePageQuery(req.query);
    const matches = matchesFilter(filter);
    const ids = await capturedIds(dir);
    const newest: CapturedEntry[] = [];
    const entries: CapturedEntry[] = [];
    let more = false;
    for await (const e of readCapturedEntries(dir, ids)) {
      if (newest.length < PAGE_LIMIT) newest.push(e);
      if (matches(e)) {
        if (entries.length < PAGE_LIMIT) entries.push(e);
        else more = true;
      }
      if (more && newest.length === PAGE_LIMIT) break;
    }
    // Each id with the names it was recorded with (a renamed project has two); older entries have
    // no tenant name.
    const tenants = new Map<string, Set<string>>();
    const projects = new Map<string, Set<string>>();
    const note = (into: Map<string, Set<string>>, id: string | undefined, name: string | undefined) => {
      if (!id) return;
      const names = into.get(id) ?? new Set<string>();
      if (name) names.add(name);
      into.set(id, names);
    };
    for (const e of newest) {
      note(tenants, e.tenantId, e.tenantName);
      note(projects, e.projectId, e.projectName);
    }
    const choices = (from: Map<string, Set<string>>) =>
      [...from]
        .map(([id, names]) => ({ id, label: names.size > 0 ? `${[...names].join(', ')} (${id})` : id }))
        .sort((a, b) => a.label.localeCompare(b.label));
    return html(
      reply,
      200,
      renderInboxListPage({
        entries,
        more,
        total: ids.length,
        filter,
        templates: [...new Set(newest.map((e) => e.templateId))].sort(),
        tenants: choices(tenants),
        projects: choices(projects),
      }),
    );
  });

  app.get('/dev/inbox/app.js', loopback, async (_req, reply) =>
    reply.headers(API_HEADERS).type('text/javascript; charset=utf-8').send(INBOX_SCRIPT),
  );

  app.get('/dev/inbox/:id', loopback, async (req, reply) => {
    const { id } = req.params as { id: string };
    const raw = await readCaptured(dir, id);
    if (!raw) return html(reply, 404, renderInboxNotFoundPage());
    const message = await readInboxMessage(id, raw, await findCaptured(dir, id));
    const { db } = opts;
    const dkim = db
      ? await checkDkim(
          raw,
          (domain, selector) => findDkimPublicKey(db, domain, selector),
          addressDomain(message.from) ?? undefined,
        ).catch((err: unknown) => {
          req.log.warn({ err }, 'dev inbox: DKIM check failed');
          return { error: dkimCheckFailure(err) };
        })
      : { error: 'Not checked: this server has no database to read the sending domains’ keys from.' };
    const returnPath = message.headers.find((h) => h.name.toLowerCase() === 'return-path')?.value ?? '';
    return html(
      reply,
      200,
      renderInboxMessagePage({
        message,
        facts: messageFacts(message),
        dkim,
        returnPathDomain: addressDomain(returnPath),
      }),
    );
  });

  app.get('/dev/inbox/:id/raw', loopback, async (req, reply) => {
    const { id } = req.params as { id: string };
    const raw = await readCaptured(dir, id);
    if (!raw) return html(reply, 404, renderInboxNotFoundPage());
    return reply
      .headers(API_HEADERS)
      .header('content-disposition', `attachment; filename="${id}.eml"`)
      .type('message/rfc822')
      .send(raw);
  });

  // The first JSON view, kept for scripts that read it; /dev/inbox/api/messages has more.
  app.get('/dev/inbox.json', loopback, async (_req, reply) => {
    const messages = (await listCaptured(dir)).map((e) => ({
      messageId: e.messageId,
      capturedAt: e.capturedAt,
      to: e.to,
      toMasked: maskEmail(e.to),
      templateId: e.templateId,
      subject: e.subject,
    }));
    return reply.headers(API_HEADERS).send({ ok: true, messages });
  });

  // ---- live updates (server-sent events)

  const streams = new Set<() => void>();
  // Open event streams never end by themselves: end them when the server closes, or close()
  // would wait for them forever.
  app.addHook('preClose', async () => {
    for (const stop of [...streams]) stop();
  });

  app.get('/dev/inbox/events', loopback, async (req, reply) => {
    reply.headers({
      ...API_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    if (req.method === 'HEAD') return reply.send('');
    const stream = new PassThrough();
    let isOpen = true;
    const unwatch = watchInbox(dir, (change: InboxChange) => {
      if (!isOpen) return;
      stream.write(
        change.kind === 'captured'
          ? `event: captured\ndata: ${JSON.stringify({ messageId: change.messageId })}\n\n`
          : `event: deleted\ndata: ${JSON.stringify({ messageIds: change.messageIds })}\n\n`,
      );
    });
    // A comment now and then keeps proxies and idle timers from closing a quiet stream.
    const heartbeat = setInterval(() => isOpen && stream.write(': keep-alive\n\n'), 25_000);
    heartbeat.unref();
    const stop = () => {
      if (!isOpen) return;
      isOpen = false;
      unwatch();
      clearInterval(heartbeat);
      streams.delete(stop);
      stream.end();
    };
    reply.raw.once('close', stop);
    streams.add(stop);
    stream.write('retry: 2000\n: connected\n\n');
    return reply.send(stream);
  });

  // ---- JSON API for end-to-end tests

  app.get('/dev/inbox/api/messages', loopback, async (req, reply) => {
    const parsed = apiQuery(req.query, [...API_FILTERS, 'limit']);
    const entries = await listCaptured(dir, { limit: parsed.limit, matches: matchesFilter(parsed.filter) });
    const messages = (await Promise.all(entries.map(apiMessage))).filter((m) => m !== null);
    return reply.headers(API_HEADERS).send({ ok: true, messages });
  });

  app.get('/dev/inbox/api/messages/latest', loopback, async (req, reply) => {
    const parsed = apiQuery(req.query, API_FILTERS);
    const [entry] = await listCaptured(dir, { limit: 1, matches: matchesFilter(parsed.filter) });
    const message = entry ? await apiMessage(entry) : null;
    if (!message) {
      const which = parsed.filter.to ? ` to ${parsed.filter.to}` : '';
      throw new ApiError(
        'message_not_found',
        `No captured message${which} matches (yet: delivery takes a moment after the send is accepted).`,
      );
    }
    return reply.headers(API_HEADERS).send({ ok: true, message });
  });

  app.get('/dev/inbox/api/messages/:id', loopback, async (req, reply) => {
    apiQuery(req.query, []);
    const { id } = req.params as { id: string };
    const entry = await findCaptured(dir, id);
    const message = entry ? await apiMessage(entry) : null;
    if (!message) throw notFound(id);
    return reply.headers(API_HEADERS).send({ ok: true, message });
  });

  app.delete('/dev/inbox/api/messages/:id', changes, async (req, reply) => {
    apiQuery(req.query, []);
    const { id } = req.params as { id: string };
    if (!(await deleteCaptured(dir, id))) throw notFound(id);
    return reply.headers(API_HEADERS).send({ ok: true, deleted: 1 });
  });

  // With filters, only the matching messages (a parallel test cleans up its own mail); without,
  // every message and the temporary files a crash left behind.
  app.delete('/dev/inbox/api/messages', changes, async (req, reply) => {
    const { filter } = apiQuery(req.query, API_FILTERS);
    const deleted =
      Object.keys(filter).length === 0
        ? await deleteAllCaptured(dir)
        : await deleteMatchingCaptured(dir, matchesFilter(filter));
    return reply.headers(API_HEADERS).send({ ok: true, deleted });
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
