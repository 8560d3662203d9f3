// The dev inbox (like Mailpit): messages stored by the capture transport, served only by
// `mailsvc start` when no MAILSVC_SMTP_URL is set, and only to requests addressed to a loopback
// name (dev/dev-access.ts). Pages (inbox-page-routes.ts), a live event stream (inbox-events.ts),
// and a JSON API for end-to-end tests (inbox-api.ts; docs/dev-inbox.md).
// Scripts: only /dev/inbox/app.js (same origin); forms: only the filter form (GET, same origin).
// The message's HTML is in a frame sandboxed without allow-scripts (DEV_PAGE_HEADERS says more).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.js';
import { inboxApiChangeRoutes, inboxApiReadRoutes } from './inbox-api.js';
import { inboxEventRoutes } from './inbox-events.js';
import { inboxListRoutes, inboxMessageRoutes } from './inbox-page-routes.js';

export interface DevInboxOptions {
  dir: string;
  /** For the Checks tab's DKIM result (the sending domains' public keys); without it, not checked. */
  db?: Db;
}

export function devInboxRoutes(app: FastifyInstance, opts: DevInboxOptions) {
  inboxListRoutes(app, opts.dir);
  inboxMessageRoutes(app, opts.dir, opts.db);
  inboxEventRoutes(app, opts.dir);
  inboxApiReadRoutes(app, opts.dir);
  inboxApiChangeRoutes(app, opts.dir);
}
