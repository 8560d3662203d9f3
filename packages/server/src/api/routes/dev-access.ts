// Who may see the dev pages (/dev/templates, /dev/inbox: login codes, reset links and full
// addresses of every tenant's captured mail). Only requests addressed to this machine by a
// loopback name — so a page on another site cannot read them through DNS rebinding
// (Host: attacker.example resolving to 127.0.0.1) — and only where the server is meant to be
// reached locally: on a non-loopback bind the pages are off unless MAILSVC_DEV_PAGES=on.
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { sendError } from '../errors.js';

const isLoopbackAddress = (host: string) =>
  host === '::1' || (isIP(host) === 4 && host.startsWith('127.')) || host === 'localhost';

/** localhost, *.localhost, 127.0.0.0/8 or [::1], with or without a port. */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, ''))
    .toLowerCase()
    .replace(/\.$/, '');
  return isLoopbackAddress(name) || name.endsWith('.localhost');
}

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
  const isLocalBind = isLoopbackAddress(config.HOST.replace(/^\[|\]$/g, '').toLowerCase());
  const on =
    mode === 'start' &&
    (config.MAILSVC_DEV_PAGES === 'on' || (config.MAILSVC_DEV_PAGES === 'auto' && isLocalBind));
  return {
    templates: on,
    inbox: on && !config.MAILSVC_SMTP_URL,
    ...(on &&
      !isLocalBind && {
        warning: `dev pages on a non-loopback bind (HOST=${config.HOST}, MAILSVC_DEV_PAGES=on): served only to requests addressed to localhost`,
      }),
  };
}
