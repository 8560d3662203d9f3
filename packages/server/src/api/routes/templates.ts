import type { ListTemplatesRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listTemplates } from '../../domain/templates/list-templates.js';
import { apiRoute } from '../route.js';

/** POST /v1/templates/list: the catalogue's templates, versions and example data. */
export function templateRoutes(app: FastifyInstance, _deps: Deps) {
  apiRoute(app, 'listTemplates', {
    access: ['trial', 'project', 'environment'],
    handler: async (req) => ({ ok: true, ...listTemplates(req.body as ListTemplatesRequest) }),
  });
}
