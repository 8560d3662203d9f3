// The dev inbox's pages: the list (filters, newest first), a message (its tabs and checks), the raw
// message, the pages' script, and the first JSON view of the list.
import type { FastifyInstance } from 'fastify';
import { findDkimPublicKey } from '../../db/repositories/sending-domains.js';
import type { Db } from '../../db/schema.js';
import {
  type CapturedEntry,
  capturedIds,
  findCaptured,
  listCaptured,
  readCaptured,
  readCapturedEntries,
} from '../../delivery/transports/capture.js';
import { maskEmail } from '../../domain/email.js';
import { DEV_API_HEADERS, requireLoopbackHost, sendDevPage } from '../dev-access.js';
import { checkDkim, DkimCheckError } from './check-dkim.js';
import {
  type InboxListView,
  renderInboxListPage,
  renderInboxMessagePage,
  renderInboxNotFoundPage,
} from './inbox-page.js';
import { type InboxFilter, matchesFilter, PAGE_LIMIT, parsePageQuery } from './inbox-query.js';
import { INBOX_SCRIPT } from './inbox-script.js';
import { messageFacts, readInboxMessage } from './read-message.js';

const loopback = { onRequest: requireLoopbackHost };

/** The domain of an address as a header writes it (`a@b.test`, `"A" <a@b.test>`), or null. */
const addressDomain = (address: string) => /@([^>\s@]+)>?\s*$/.exec(address)?.[1] ?? null;

/** The Checks tab's DKIM cell when the check threw: which of the two it was, and what to do. */
function dkimCheckFailure(err: unknown): string {
  if (err instanceof DkimCheckError && err.reason === 'database')
    return 'Not checked: the database did not answer when asked for the sending domain’s public key; reload to retry.';
  const why = err instanceof Error ? err.message : String(err);
  return `Not checked: the DKIM verifier could not read this message (${why.slice(0, 200)}); reloading will not change that.`;
}

// Reads only what it shows: index entries newest first (ids are time-ordered), until the page is
// full and one more match says there are more. The count comes from the directory listing; the
// filters' choices from the newest PAGE_LIMIT messages. A filter reads as far as it must.
async function readListView(dir: string, filter: InboxFilter): Promise<InboxListView> {
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
  return {
    entries,
    more,
    total: ids.length,
    filter,
    templates: [...new Set(newest.map((e) => e.templateId))].sort(),
    tenants: choices(tenants),
    projects: choices(projects),
  };
}

/** GET /dev/inbox, /dev/inbox/app.js and /dev/inbox.json: the list, its script, the list as JSON. */
export function inboxListRoutes(app: FastifyInstance, dir: string) {
  app.get('/dev/inbox', loopback, async (req, reply) =>
    sendDevPage(reply, 200, renderInboxListPage(await readListView(dir, parsePageQuery(req.query)))),
  );

  app.get('/dev/inbox/app.js', loopback, async (_req, reply) =>
    reply.headers(DEV_API_HEADERS).type('text/javascript; charset=utf-8').send(INBOX_SCRIPT),
  );

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
    return reply.headers(DEV_API_HEADERS).send({ ok: true, messages });
  });
}

/** GET /dev/inbox/:id and /dev/inbox/:id/raw: a message's page (DKIM checked with `db`), its source. */
export function inboxMessageRoutes(app: FastifyInstance, dir: string, db: Db | undefined) {
  app.get('/dev/inbox/:id', loopback, async (req, reply) => {
    const { id } = req.params as { id: string };
    const raw = await readCaptured(dir, id);
    if (!raw) return sendDevPage(reply, 404, renderInboxNotFoundPage());
    const message = await readInboxMessage(id, raw, await findCaptured(dir, id));
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
    return sendDevPage(
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
    if (!raw) return sendDevPage(reply, 404, renderInboxNotFoundPage());
    return reply
      .headers(DEV_API_HEADERS)
      .header('content-disposition', `attachment; filename="${id}.eml"`)
      .type('message/rfc822')
      .send(raw);
  });
}
