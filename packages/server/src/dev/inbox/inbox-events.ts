// GET /dev/inbox/events: the inbox's changes as server-sent events (captured, deleted) and the
// Webhooks tab's (webhook, webhooks-deleted), for the pages' live updates.
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type InboxChange, watchInbox } from '../../delivery/transports/capture.js';
import { DEV_API_HEADERS, requireLoopbackHost } from '../dev-access.js';
import type { CatcherChange, WebhookCatcher } from './webhook-catcher.js';

export function inboxEventRoutes(app: FastifyInstance, dir: string, catcher: WebhookCatcher) {
  const streams = new Set<() => void>();
  // Open event streams never end by themselves: end them when the server closes, or close()
  // would wait for them forever.
  app.addHook('preClose', async () => {
    for (const stop of [...streams]) stop();
  });

  app.get('/dev/inbox/events', { onRequest: requireLoopbackHost }, async (req, reply) => {
    reply.headers({
      ...DEV_API_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    if (req.method === 'HEAD') return reply.send('');
    const stream = new PassThrough();
    let isOpen = true;
    const unwatch = watchInbox(dir, (change: InboxChange) => {
      if (!isOpen) return;
      stream.write(
        change.kind === 'captured'
          ? `event: captured\ndata: ${JSON.stringify({ messageId: change.messageId })}\n\n`
          : `event: deleted\ndata: ${JSON.stringify({ messageIds: change.messageIds })}\n\n`,
      );
    });
    const unwatchCatcher = catcher.watch((change: CatcherChange) => {
      if (!isOpen) return;
      stream.write(
        change.kind === 'caught'
          ? `event: webhook\ndata: ${JSON.stringify({ id: change.id })}\n\n`
          : `event: webhooks-deleted\ndata: ${JSON.stringify({ count: change.count })}\n\n`,
      );
    });
    // A comment now and then keeps proxies and idle timers from closing a quiet stream.
    const heartbeat = setInterval(() => isOpen && stream.write(': keep-alive\n\n'), 25_000);
    heartbeat.unref();
    const stop = () => {
      if (!isOpen) return;
      isOpen = false;
      unwatch();
      unwatchCatcher();
      clearInterval(heartbeat);
      streams.delete(stop);
      stream.end();
    };
    reply.raw.once('close', stop);
    streams.add(stop);
    stream.write('retry: 2000\n: connected\n\n');
    return reply.send(stream);
  });
}
