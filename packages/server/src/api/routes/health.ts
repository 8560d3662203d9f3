import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Deps } from '../../domain/deps.js';
import { sendError } from '../errors.js';

export function healthRoutes(app: FastifyInstance, deps: Deps) {
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/readyz', async (req, reply) => {
    try {
      await sql`SELECT 1`.execute(deps.db);
      return { ok: true };
    } catch (err) {
      req.log.warn({ err }, 'database not reachable');
      return sendError(reply, 'service_unavailable', 'The database is not reachable.');
    }
  });
}
