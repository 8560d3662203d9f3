// The dev pages as `mailsvc start` serves them (cli/serve.ts): the gallery, with its send route
// only where devPagesFor allows it, and the dev inbox with its Webhooks tab.
import type { FastifyInstance } from 'fastify';
import { inboxDir } from '../delivery/transports/capture.js';
import type { Deps } from '../domain/deps.js';
import type { DevPages } from './dev-access.js';
import { devRoutes } from './gallery/gallery-routes.js';
import { devInboxRoutes } from './inbox/inbox-routes.js';

/** The routes to add to the app (buildApp's extraRoutes) for these pages. */
export function devPageRoutes(deps: Deps, pages: DevPages): ((app: FastifyInstance) => unknown)[] {
  return [
    ...(pages.templates
      ? [(a: FastifyInstance) => devRoutes(a, deps, pages.gallerySend && { send: pages.gallerySend })]
      : []),
    ...(pages.inbox
      ? [
          (a: FastifyInstance) =>
            devInboxRoutes(a, {
              dir: inboxDir(deps.config.dataDir),
              db: deps.db,
              clock: deps.clock,
              isPrivateWebhookAllowed: deps.config.MAILSVC_WEBHOOK_ALLOW_PRIVATE,
            }),
        ]
      : []),
  ];
}
