// Who may see the dev pages (/dev/templates, /dev/inbox: login codes, reset links and full
// addresses of every tenant's captured mail). Only requests addressed to this machine by a
// loopback name — so a page on another site cannot read them through DNS rebinding
// (Host: attacker.example resolving to 127.0.0.1) — and only where the server is meant to be
// reached locally: on a non-loopback bind the pages are off unless MAILSVC_DEV_PAGES=on. The Host
// check stops browsers, not a client that sends Host: localhost itself: with `on`, the port must
// only be reachable locally (the banner says so). Routes that change something also refuse requests
// from other origins (requireSameOrigin).
import { isLoopbackHostHeader, isLoopbackName } from '@mailsvc/contract/http-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../api/errors.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';

/**
 * The headers of every dev page (gallery, inbox). Scripts: only the pages' own /dev/…/app.js
 * (same origin), none inline; they may call this origin only. Forms: GET, same origin. A message's
 * HTML is shown in a frame sandboxed without allow-scripts (FRAME_SANDBOX), so nothing in it runs
 * whatever this policy allows; the frame inherits the policy, so only https and inline images
 * load in it (a project's logo shows).
 */
export const DEV_PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src data: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
} as const;

/** The headers of what dev routes answer that is not a page: scripts, JSON, event streams, raw mail. */
export const DEV_API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** Answers a dev page (HTML) with DEV_PAGE_HEADERS. */
export const sendDevPage = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).headers(DEV_PAGE_HEADERS).type('text/html; charset=utf-8').send(body);

/** onRequest of every dev page: anything not addressed to a loopback name does not exist. */
export async function requireLoopbackHost(req: FastifyRequest, reply: FastifyReply) {
  // The Host header as sent: X-Forwarded-Host (trusted behind a proxy) names the public host.
  if (!isLoopbackHostHeader(req.headers.host)) {
    return sendError(reply, 'not_found', `No route ${req.method} ${req.url.split('?')[0]}.`);
  }
}

/**
 * onRequest of dev routes that change something (the inbox's DELETEs), after the Host check: a
 * page on another site, or another local dev server (same site, another port), must not reach them
 * from the developer's browser. Browsers send Origin with every DELETE and POST, and
 * Sec-Fetch-Site with every request; both must name this origin. A request with neither comes
 * from a program (curl, Playwright's request context), which no page can drive.
 */
export async function requireSameOrigin(req: FastifyRequest) {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin?.toLowerCase();
  const host = req.headers.host?.toLowerCase();
  const isSameOrigin = origin === undefined || origin === `http://${host}` || origin === `https://${host}`;
  if ((site !== undefined && site !== 'same-origin') || !isSameOrigin) {
    throw new ApiError(
      'cross_site_request',
      'Cross-site request refused: dev pages change only for a page of this origin (Origin, Sec-Fetch-Site) or a program that sends neither; nothing changed.',
      [
        origin === undefined || isSameOrigin
          ? { path: '/headers/sec-fetch-site', message: 'must be same-origin' }
          : { path: '/headers/origin', message: 'is not this origin' },
      ],
    );
  }
}

/** "Send to dev inbox" on the gallery (POST /dev/templates/:id/send): on, or off and why. */
export type GallerySend = { isOn: true } | { isOn: false; reason: string };

export interface DevPages {
  templates: boolean;
  inbox: boolean;
  /** Whether the gallery sends (gallerySendFor); undefined without the gallery. */
  gallerySend?: GallerySend;
  /** For the start-up banner when the pages are served on a non-loopback bind. */
  warning?: string;
}

/**
 * Whether the gallery may send: only where nothing but this process's capture transport can
 * deliver what it queues. With MAILSVC_SMTP_URL this process relays for real; on PostgreSQL
 * (DATABASE_URL) another `mailsvc worker` with a relay may claim the message from the shared
 * queue. The embedded database admits one process, so its queue is this process's alone.
 */
export function gallerySendFor(
  config: Pick<Config, 'MAILSVC_SMTP_URL'>,
  databaseKind: 'pglite' | 'postgres',
): GallerySend {
  if (config.MAILSVC_SMTP_URL)
    return {
      isOn: false,
      reason: 'Sending is off: the dev inbox exists only with the capture transport (no MAILSVC_SMTP_URL).',
    };
  if (databaseKind !== 'pglite')
    return {
      isOn: false,
      reason:
        'Sending is off on PostgreSQL (DATABASE_URL): another worker on the same database could deliver it for real. The gallery sends only on the embedded database.',
    };
  return { isOn: true };
}

/**
 * `mailsvc start` only; the inbox only with the capture transport (no MAILSVC_SMTP_URL); the
 * gallery's send only with the capture transport on the embedded database (gallerySendFor).
 */
export function devPagesFor(
  config: Config,
  mode: 'start' | 'api',
  databaseKind: 'pglite' | 'postgres',
): DevPages {
  const isLocalBind = isLoopbackName(config.HOST);
  const on =
    mode === 'start' &&
    (config.MAILSVC_DEV_PAGES === 'on' || (config.MAILSVC_DEV_PAGES === 'auto' && isLocalBind));
  return {
    templates: on,
    inbox: on && !config.MAILSVC_SMTP_URL,
    ...(on && { gallerySend: gallerySendFor(config, databaseKind) }),
    ...(on &&
      !isLocalBind && {
        warning: `dev pages on a non-loopback bind (HOST=${config.HOST}, MAILSVC_DEV_PAGES=on): any client that reaches this port and sends Host: localhost can read every captured message; publish the port on 127.0.0.1 only`,
      }),
  };
}
