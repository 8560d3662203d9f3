import type { FastifyInstance } from 'fastify';
import { requireLoopbackHost } from './dev-access.js';

/** Dev-only pages, served by `mailsvc start`. */
export function devRoutes(app: FastifyInstance) {
  app.get('/dev/templates', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const { renderGalleryPage } = await import('@mailsvc/templates');
    const format = (req.query as { format?: string }).format === 'text' ? 'text' : 'html';
    return reply.type('text/html; charset=utf-8').send(renderGalleryPage({ format }));
  });
}
