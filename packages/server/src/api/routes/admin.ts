import type { FastifyInstance } from 'fastify';
import { adminCommands } from '../../domain/admin/index.js';
import type { Deps } from '../../domain/deps.js';
import { refuseOversizedBody } from '../route.js';

/** POST /admin/v1/<group>/<action> for every admin use-case; body = the command's input. */
export function adminRoutes(app: FastifyInstance, deps: Deps) {
  for (const [name, command] of Object.entries(adminCommands)) {
    app.post(`/admin/v1/${name.replace('.', '/')}`, {
      config: { auth: 'admin', jsonBody: true },
      schema: { body: command.input },
      preValidation: async (req) => refuseOversizedBody(command.input, req.body),
      handler: async (req) => ({ ok: true, ...(await command.run(deps, req.body as never, 'admin:api')) }),
    });
  }
}
