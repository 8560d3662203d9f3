// The dev inbox's Webhooks tab (docs/dev-inbox.md, Webhooks): the catcher an endpoint can point
// at (POST /dev/inbox/webhooks/catch), its page (GET /dev/inbox/webhooks) and its JSON API (GET
// and DELETE /dev/inbox/api/webhooks). Loopback only, like every dev route; the catcher also
// refuses another site's page (requireSameOrigin: the runner sends neither Origin nor
// Sec-Fetch-Site), so a page the developer visits cannot fill the list.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonBodyGuard } from '../../api/json-body.js';
import { DEV_API_HEADERS, requireLoopbackHost, requireSameOrigin, sendDevPage } from '../dev-access.js';
import { apiQuery, changes } from './inbox-api.js';
import { type CaughtWebhook, headerRecord, readPayload, type WebhookCatcher } from './webhook-catcher.js';
import { CATCH_PATH, renderWebhooksPage } from './webhook-page.js';

const loopback = { onRequest: requireLoopbackHost };

/** The URL the request was sent to, written as an endpoint's URL is stored (URL.href). */
function requestUrl(req: FastifyRequest): string {
  const raw = `http://${req.headers.host}${req.url}`;
  try {
    return new URL(raw).href;
  } catch {
    return raw;
  }
}

/**
 * This server as the runner reaches it on this machine: 127.0.0.1 (or [::1] when the page came in
 * over IPv6 loopback) and the port the request arrived on.
 */
function localBaseUrl(req: FastifyRequest): string {
  const hostPort = /:(\d+)$/.exec(req.headers.host ?? '')?.[1];
  const port = req.socket.localPort ?? (hostPort ? Number(hostPort) : 80);
  const host = req.socket.localAddress === '::1' ? '[::1]' : '127.0.0.1';
  return `http://${host}:${port}`;
}

function apiWebhook(c: CaughtWebhook) {
  const read = readPayload(c.body);
  return {
    id: c.id,
    receivedAt: c.receivedAt,
    url: c.url,
    webhookId: c.headers['webhook-id'] ?? null,
    type: read?.type ?? null,
    verified: c.verification.result === 'verified',
    verification: c.verification,
    headers: c.headers,
    body: c.body,
    payload: read ? read.payload : null,
  };
}

export async function inboxWebhookRoutes(
  app: FastifyInstance,
  catcher: WebhookCatcher,
  isPrivateAllowed: boolean,
): Promise<void> {
  // The catcher keeps the bytes as received (a signature covers them): its own scope reads a
  // JSON body as text instead of parsing it.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
      done(null, body),
    );
    const guards = [
      requireLoopbackHost,
      requireSameOrigin,
      jsonBodyGuard({ message: 'The catcher takes what webhooks send: Content-Type: application/json.' }),
    ];
    scope.post(CATCH_PATH, { onRequest: guards }, async (req, reply) => {
      const caught = await catcher.catch({
        url: requestUrl(req),
        headers: headerRecord(req.headers),
        body: typeof req.body === 'string' ? req.body : '',
      });
      // What the runner's attempt log keeps (POST /v1/webhooks/deliveries/list): the verdict.
      return reply
        .headers(DEV_API_HEADERS)
        .send({ ok: true, id: caught.id, verification: caught.verification });
    });
  });

  app.get('/dev/inbox/webhooks', loopback, async (req, reply) =>
    sendDevPage(
      reply,
      200,
      renderWebhooksPage({ caught: catcher.list(), baseUrl: localBaseUrl(req), isPrivateAllowed }),
    ),
  );

  app.get('/dev/inbox/api/webhooks', loopback, async (req, reply) => {
    const { limit } = apiQuery(req.query, ['limit']);
    return reply.headers(DEV_API_HEADERS).send({ ok: true, webhooks: catcher.list(limit).map(apiWebhook) });
  });

  app.delete('/dev/inbox/api/webhooks', changes, async (req, reply) => {
    apiQuery(req.query, []);
    return reply.headers(DEV_API_HEADERS).send({ ok: true, deleted: catcher.clear() });
  });
}
