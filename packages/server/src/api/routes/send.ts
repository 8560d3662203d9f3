import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { type SendInput, sendMessage } from '../../domain/send/send-message.js';
import { authOf } from '../auth-hook.js';

// Body shape only (DESIGN.md §3 step 2). from, fromName and replyTo are checked later with their
// own codes (invalid_from_address, invalid_from_name, invalid_reply_to).
const SendBody = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    to: Type.String({ minLength: 1, maxLength: 320 }),
    data: Type.Object({}, { additionalProperties: true }),
    templateVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    from: Type.Optional(Type.String({ maxLength: 320 })),
    fromName: Type.Optional(Type.String({ maxLength: 1000 })),
    replyTo: Type.Optional(Type.String({ maxLength: 320 })),
  },
  { additionalProperties: false },
);

export function sendRoutes(app: FastifyInstance, deps: Deps) {
  app.post('/v1/send', {
    config: { auth: 'apiKey', access: ['trial', 'project', 'environment'], jsonBody: true },
    schema: { body: SendBody },
    handler: async (req) => ({
      ok: true,
      ...(await sendMessage(deps, authOf(req), req.body as SendInput, req.headers['idempotency-key'])),
    }),
  });
}
