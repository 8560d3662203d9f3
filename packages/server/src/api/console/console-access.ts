// What every console route checks: the session cookie (httpOnly, SameSite=Strict, Secure outside
// loopback, `__Host-` prefixed when Secure), the page's origin on every POST, and the session's CSRF
// token on every change a session makes (DESIGN.md §14).
import { timingSafeEqual } from 'node:crypto';
import { isLoopbackHostHeader } from '@mailsvc/contract/http-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionRow } from '../../db/repositories/console-people.js';
import { csrfTokenOf, requireSession } from '../../domain/console/session.js';
import { SESSION_ABSOLUTE_MS } from '../../domain/console/sign-in.js';
import type { Deps } from '../../domain/deps.js';
import { ApiError } from '../../errors.js';

/** The ids the console's routes take (mem_…, ses_…, env_…, ten_…, msg_…): anything else is refused unread. */
export const CONSOLE_ID_PATTERN = '^[a-z]{2,4}_[0-9A-Za-z]{1,60}$';

/**
 * Secure cookies need https: off only when the console is reached on a loopback name over http
 * (a developer's `mailsvc start`), where a browser would drop a Secure cookie.
 */
export function cookieNameFor(req: FastifyRequest): { name: string; secure: boolean } {
  const secure = !(req.protocol === 'http' && isLoopbackHostHeader(req.headers.host));
  return { name: secure ? '__Host-mailsvc_session' : 'mailsvc_session', secure };
}

/** The session token the request's cookie carries, if any. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const { name } = cookieNameFor(req);
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string): void {
  const { name, secure } = cookieNameFor(req);
  reply.header(
    'set-cookie',
    `${name}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_ABSOLUTE_MS / 1000}${secure ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply): void {
  const { name, secure } = cookieNameFor(req);
  reply.header(
    'set-cookie',
    `${name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`,
  );
}

/**
 * onRequest of every console POST: a browser sends Origin with every POST and Sec-Fetch-Site with
 * every request; both must name this origin (a form on another site, or another local port, is
 * refused before anything is read). A program that sends neither (curl, tests) passes this check;
 * it still needs the session's CSRF token for any change (requireCsrf).
 */
export async function requireSameOriginPost(req: FastifyRequest): Promise<void> {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin?.toLowerCase();
  const host = req.headers.host?.toLowerCase();
  const sameOrigin = origin === undefined || origin === `http://${host}` || origin === `https://${host}`;
  if ((site !== undefined && site !== 'same-origin' && site !== 'none') || !sameOrigin) {
    throw new ApiError(
      'cross_site_request',
      'Cross-site request refused: the console changes only for its own pages; nothing changed.',
    );
  }
}

/** The request's live session (401 session_required otherwise). */
export function sessionOf(deps: Deps, req: FastifyRequest): Promise<SessionRow> {
  return requireSession(deps, sessionToken(req));
}

/** The session, and for a change its CSRF token in X-CSRF-Token (403 cross_site_request otherwise). */
export async function changingSessionOf(deps: Deps, req: FastifyRequest): Promise<SessionRow> {
  const session = await sessionOf(deps, req);
  const sent = req.headers['x-csrf-token'];
  const expected = Buffer.from(await csrfTokenOf(deps, session.id));
  const actual = Buffer.from(typeof sent === 'string' ? sent : '');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new ApiError(
      'cross_site_request',
      'The X-CSRF-Token header is missing or wrong; reload the console. Nothing changed.',
    );
  }
  return session;
}
