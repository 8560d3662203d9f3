// Relay events: POST /v1/events/intake (Standard Webhooks) and POST /v1/events/ses (Amazon SES
// through SNS). Both are authenticated by a signature over the body, not an API key, so their
// own scope keeps the raw body beside the parsed one: a signature covers the bytes received.
import type { RelayEventRequest } from '@mailsvc/contract/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import {
  ingestRelayEvent,
  type VerifiedEvent,
  verifyRelayEvent,
} from '../../domain/feedback/ingest-relay-event.js';
import { ingestSesEvent } from '../../domain/feedback/ingest-ses-event.js';
import { checkFailure } from '../auth-hook.js';
import { parseJsonRequestBody } from '../errors.js';
import { apiRoute } from '../route.js';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
    verifiedEvent?: VerifiedEvent;
  }
}

export async function eventRoutes(app: FastifyInstance, deps: Deps) {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // SNS posts its JSON as text/plain; the intake's own check (jsonBody) refuses anything but
    // application/json before the body is read.
    scope.addContentTypeParser(
      ['application/json', 'text/plain'],
      { parseAs: 'string' },
      (req, body, done) => {
        req.rawBody = body as string;
        parseJsonRequestBody(body as string, done);
      },
    );
    scope.decorateRequest('rawBody', undefined);
    scope.decorateRequest('verifiedEvent', undefined);

    apiRoute(scope, 'ingestRelayEvent', {
      // The signature first: an unsigned caller learns nothing about the body's shape.
      preValidation: async (req: FastifyRequest) => {
        req.verifiedEvent = await checkFailure(deps, req, () =>
          verifyRelayEvent(deps, req.rawBody ?? '', req.body, req.headers),
        );
      },
      handler: async (req) => ({
        ok: true,
        ...(await ingestRelayEvent(
          deps,
          req.verifiedEvent!,
          req.body as RelayEventRequest,
          req.rawBody ?? '',
        )),
      }),
    });

    apiRoute(scope, 'ingestSesEvent', {
      handler: async (req) => ({
        ok: true,
        ...(await checkFailure(deps, req, () => ingestSesEvent(deps, req.body, req.rawBody ?? ''))),
      }),
    });
  });
}
