// GET /metrics: Prometheus text for this process (metrics.ts). With MAILSVC_METRICS_TOKEN set, a
// scrape must send `Authorization: Bearer <token>`; without it, only clients on this machine
// (loopback) are answered. Anything refused gets the answer of a path that does not exist.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Metrics } from '../../metrics.js';
import { sendError } from '../errors.js';

const isLoopback = (address: string | undefined) =>
  !!address && (/^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address));

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function mayScrape(config: Pick<Config, 'MAILSVC_METRICS_TOKEN'>, req: FastifyRequest): boolean {
  const token = config.MAILSVC_METRICS_TOKEN;
  if (token) {
    const header = req.headers.authorization ?? '';
    return header.startsWith('Bearer ') && sameToken(header.slice(7), token);
  }
  return isLoopback(req.socket.remoteAddress);
}

export function metricsRoutes(
  app: FastifyInstance,
  config: Pick<Config, 'MAILSVC_METRICS_TOKEN'>,
  metrics: Metrics,
) {
  app.get('/metrics', async (req, reply) => {
    if (!mayScrape(config, req))
      return sendError(reply, 'not_found', `No route GET ${req.url.split('?')[0]}.`);
    const body = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(body);
  });
}
