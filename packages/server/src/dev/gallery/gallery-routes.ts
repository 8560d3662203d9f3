// The template gallery (/dev/templates), served by `mailsvc start` only and only to requests
// addressed to a loopback name (dev/dev-access.ts): an index, a page per template, its script
// (gallery-pages.ts), and two JSON routes the page calls (gallery-actions.ts): render (no side
// effect) and send (through POST /v1/send's use-case, to the dev inbox). The send route is
// registered only with the capture transport on the embedded database (gallerySendFor in
// dev-access.ts): on PostgreSQL another worker with an SMTP relay could claim the message from
// the shared queue, and a gallery never sends real mail.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import type { GallerySend } from '../dev-access.js';
import { renderRoute, sendRoute } from './gallery-actions.js';
import { galleryContext } from './gallery-context.js';
import { galleryIndexRoutes, templatePageRoute } from './gallery-pages.js';

export interface DevRoutesOptions {
  /**
   * POST /dev/templates/:id/send: only when on (gallerySendFor: the capture transport on the
   * embedded database); off, the route does not exist and the page says why. Default: off.
   */
  send?: GallerySend;
}

const SENDING_OFF: GallerySend = {
  isOn: false,
  reason: 'Sending is off: the gallery sends only with the capture transport on the embedded database.',
};

export function devRoutes(app: FastifyInstance, deps: Deps, opts: DevRoutesOptions = {}) {
  const send = opts.send ?? SENDING_OFF;
  const gallery = galleryContext(deps);
  galleryIndexRoutes(app);
  templatePageRoute(app, gallery, send);
  renderRoute(app, gallery);
  if (send.isOn) sendRoute(app, gallery);
}
