import type {
  CreateWebhookRequest,
  DeleteWebhookRequest,
  GetWebhookRequest,
  ListWebhookDeliveriesRequest,
  ReplayWebhookDeliveriesRequest,
  RotateWebhookSecretRequest,
  TestWebhookRequest,
  UpdateWebhookRequest,
} from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from '../../domain/webhooks/manage-webhooks.js';
import {
  listWebhookDeliveries,
  replayWebhookDeliveries,
  testWebhook,
} from '../../domain/webhooks/webhook-deliveries.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

const ACCESS = ['trial', 'project', 'environment'] as const;

/** POST /v1/webhooks/* (DESIGN.md §11): full keys only (the contract's default). */
export function webhookRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'createWebhook', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await createWebhook(deps, authOf(req), req.body as CreateWebhookRequest)),
    }),
  });
  apiRoute(app, 'listWebhooks', {
    access: ACCESS,
    handler: async (req) => ({ ok: true, ...(await listWebhooks(deps, authOf(req))) }),
  });
  apiRoute(app, 'getWebhook', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await getWebhook(deps, authOf(req), (req.body as GetWebhookRequest).endpointId)),
    }),
  });
  apiRoute(app, 'updateWebhook', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await updateWebhook(deps, authOf(req), req.body as UpdateWebhookRequest)),
    }),
  });
  apiRoute(app, 'deleteWebhook', {
    access: ACCESS,
    handler: async (req) => {
      await deleteWebhook(deps, authOf(req), (req.body as DeleteWebhookRequest).endpointId);
      return { ok: true };
    },
  });
  apiRoute(app, 'rotateWebhookSecret', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await rotateWebhookSecret(deps, authOf(req), (req.body as RotateWebhookSecretRequest).endpointId)),
    }),
  });
  apiRoute(app, 'testWebhook', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await testWebhook(deps, authOf(req), (req.body as TestWebhookRequest).endpointId)),
    }),
  });
  apiRoute(app, 'listWebhookDeliveries', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await listWebhookDeliveries(deps, authOf(req), req.body as ListWebhookDeliveriesRequest)),
    }),
  });
  apiRoute(app, 'replayWebhookDeliveries', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await replayWebhookDeliveries(deps, authOf(req), req.body as ReplayWebhookDeliveriesRequest)),
    }),
  });
}
