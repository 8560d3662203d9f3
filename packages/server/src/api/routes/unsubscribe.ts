// GET/POST /u/:token (DESIGN §5, RFC 8058). HTML, not the JSON envelope: the audience is the
// recipient's browser and mail providers' one-click requests. A GET only reads; any POST with a
// genuine token unsubscribes, whatever its form body says (the token is the authority, and RFC
// 8058 senders always send `List-Unsubscribe=One-Click`); bodies other than form-encoded or
// multipart are refused with 415. No cookies, no redirects.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../db/errors.js';
import {
  describeUnsubscribeLink,
  readUnsubscribeToken,
  unsubscribeRecipient,
} from '../../domain/consent/unsubscribe.js';
import type { Deps } from '../../domain/deps.js';
import {
  renderInvalidLinkPage,
  renderRequestErrorPage,
  renderUnsubscribeConfirmPage,
  renderUnsubscribedPage,
} from '../pages/unsubscribe-page.js';

/** One-click bodies are a few dozen bytes; mail providers' multipart ones a few hundred. */
export const UNSUBSCRIBE_BODY_LIMIT = 8 * 1024;

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

// A wildcard, not `:token`: parameters over Fastify's maxParamLength (100) never reach a route,
// and a token is longer than that; an over-long or slashed token is simply not valid (404).
const tokenOf = (req: FastifyRequest) => (req.params as { '*': string })['*'];

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The invalid-link page with the pages' headers, for a /u/ path the router cannot even decode (bad
 * percent-encoding): every /u/ answer is an HTML page, never the API's JSON (app.ts frameworkErrors).
 */
export function sendInvalidLinkPage(reply: FastifyReply) {
  return html(reply.headers(SECURITY_HEADERS), 404, renderInvalidLinkPage());
}

/** Whether a raw request path is under the unsubscribe pages' /u/ prefix. */
export const isUnsubscribePath = (url: string) => /^\/u(\/|$)/.test(url);

/** Must be awaited before the app's 405 routes are collected (the routes live in their own scope). */
export function unsubscribeRoutes(app: FastifyInstance, deps: Deps) {
  return app.register(
    async (scope) => {
      // Only this scope reads form bodies; the rest of the app stays JSON-only.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        ['application/x-www-form-urlencoded', 'multipart/form-data'],
        { parseAs: 'buffer', bodyLimit: UNSUBSCRIBE_BODY_LIMIT },
        (_req, _body, done) => done(null, null),
      );
      scope.addHook('onSend', async (_req, reply) => {
        reply.headers(SECURITY_HEADERS);
      });
      scope.setErrorHandler((err: FastifyError, req, reply) => {
        if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.statusCode === 415) {
          return html(
            reply,
            415,
            renderRequestErrorPage(
              'Send the form as application/x-www-form-urlencoded or multipart/form-data.',
            ),
          );
        }
        if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
          return html(reply, 413, renderRequestErrorPage('The request body is too large.'));
        }
        if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
          return html(reply, 400, renderRequestErrorPage('The request could not be read.'));
        }
        if (isDatabaseUnavailable(err)) {
          req.log.warn({ err }, 'database unavailable');
          reply.header('Retry-After', '1');
          return html(
            reply,
            503,
            renderRequestErrorPage(
              'The service is briefly unavailable. Nothing changed; please try again shortly.',
            ),
          );
        }
        req.log.error({ err }, 'unhandled error');
        return html(reply, 500, renderRequestErrorPage('Something went wrong. Please try again later.'));
      });

      scope.get('/*', async (req, reply) => {
        const target = readUnsubscribeToken(deps, tokenOf(req));
        const link = target && (await describeUnsubscribeLink(deps, target));
        if (!link) return html(reply, 404, renderInvalidLinkPage());
        return html(
          reply,
          200,
          link.isUnsubscribed ? renderUnsubscribedPage(link) : renderUnsubscribeConfirmPage(link),
        );
      });

      scope.post('/*', async (req, reply) => {
        const target = readUnsubscribeToken(deps, tokenOf(req));
        const source = (req.query as { via?: unknown }).via === 'page' ? 'page' : 'one_click';
        const result = target && (await unsubscribeRecipient(deps, target, source));
        if (!result) return html(reply, 404, renderInvalidLinkPage());
        return html(reply, 200, renderUnsubscribedPage(result));
      });
    },
    { prefix: '/u' },
  );
}
