// The dev inbox (like Mailpit): messages stored by the capture transport, served only by
// `mailsvc start` when no MAILSVC_SMTP_URL is set, and only to requests addressed to a loopback
// name (dev/dev-access.ts). Pages (inbox-page-routes.ts), a live event stream (inbox-events.ts),
// a JSON API for end-to-end tests (inbox-api.ts; docs/dev-inbox.md), and the Webhooks tab: a
// catcher for webhook endpoints, its page and API (webhook-routes.ts).
// Scripts: only /dev/inbox/app.js (same origin); forms: only the filter form (GET, same origin).
// The message's HTML is in a frame sandboxed without allow-scripts (DEV_PAGE_HEADERS says more).
import type { FastifyInstance } from 'fastify';
import { type Clock, systemClock } from '../../clock.js';
import { findEndpointSecretsByUrl } from '../../db/repositories/webhook-endpoints.js';
import type { Db } from '../../db/schema.js';
import { inboxApiChangeRoutes, inboxApiReadRoutes } from './inbox-api.js';
import { inboxEventRoutes } from './inbox-events.js';
import { inboxListRoutes, inboxMessageRoutes } from './inbox-page-routes.js';
import { WebhookCatcher } from './webhook-catcher.js';
import { inboxWebhookRoutes } from './webhook-routes.js';

export interface DevInboxOptions {
  dir: string;
  /**
   * For the Checks tab's DKIM result (the sending domains' public keys) and the Webhooks tab's
   * signatures (the endpoints' secrets); without it, neither is checked.
   */
  db?: Db;
  /** The Webhooks tab's clock: when a request arrived, and whether its timestamp is recent. */
  clock?: Clock;
  /** MAILSVC_WEBHOOK_ALLOW_PRIVATE: false, the runner cannot reach the catcher (the tab says so). */
  isPrivateWebhookAllowed?: boolean;
}

export async function devInboxRoutes(app: FastifyInstance, opts: DevInboxOptions): Promise<void> {
  const { db } = opts;
  const catcher = new WebhookCatcher(
    opts.clock ?? systemClock,
    db && ((url) => findEndpointSecretsByUrl(db, url)),
  );
  inboxListRoutes(app, opts.dir);
  inboxMessageRoutes(app, opts.dir, db);
  inboxEventRoutes(app, opts.dir, catcher);
  await inboxWebhookRoutes(app, catcher, opts.isPrivateWebhookAllowed ?? false);
  inboxApiReadRoutes(app, opts.dir);
  inboxApiChangeRoutes(app, opts.dir);
}
