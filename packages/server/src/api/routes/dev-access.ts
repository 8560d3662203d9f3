// Who may see the dev pages (/dev/templates, /dev/inbox: login codes, reset links and full
// addresses of every tenant's captured mail). Only requests addressed to this machine by a
// loopback name — so a page on another site cannot read them through DNS rebinding
// (Host: attacker.example resolving to 127.0.0.1) — and only where the server is meant to be
// reached locally: on a non-loopback bind the pages are off unless MAILSVC_DEV_PAGES=on. The Host
// check stops browsers, not a client that sends Host: localhost itself: with `on`, the port must
// only be reachable locally (the banner says so).
import { isLoopbackHostHeader, isLoopbackName } from '@mailsvc/contract/http-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { sendError } from '../errors.js';

/** onRequest of every dev page: anything not addressed to a loopback name does not exist. */
export async function requireLoopbackHost(req: FastifyRequest, reply: FastifyReply) {
  // The Host header as sent: X-Forwarded-Host (trusted behind a proxy) names the public host.
  if (!isLoopbackHostHeader(req.headers.host)) {
    return sendError(reply, 'not_found', `No route ${req.method} ${req.url.split('?')[0]}.`);
  }
}

export interface DevPages {
  templates: boolean;
  inbox: boolean;
  /** For the start-up banner when the pages are served on a non-loopback bind. */
  warning?: string;
}

/** `mailsvc start` only; the inbox only with the capture transport (no MAILSVC_SMTP_URL). */
export function devPagesFor(config: Config, mode: 'start' | 'api'): DevPages {
  const isLocalBind = isLoopbackName(config.HOST);
  const on =
    mode === 'start' &&
    (config.MAILSVC_DEV_PAGES === 'on' || (config.MAILSVC_DEV_PAGES === 'auto' && isLocalBind));
  return {
    templates: on,
    inbox: on && !config.MAILSVC_SMTP_URL,
    ...(on &&
      !isLocalBind && {
        warning: `dev pages on a non-loopback bind (HOST=${config.HOST}, MAILSVC_DEV_PAGES=on): any client that reaches this port and sends Host: localhost can read every captured message; publish the port on 127.0.0.1 only`,
      }),
  };
}
