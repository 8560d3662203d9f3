import type { GetDailyStatsRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getDailyStats } from '../../domain/stats/daily-stats.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

/** POST /v1/stats/daily: the environment's mail per UTC day (the console's overview). */
export function statsRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'getDailyStats', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => ({
      ok: true,
      ...(await getDailyStats(deps, authOf(req), req.body as GetDailyStatsRequest)),
    }),
  });
}
