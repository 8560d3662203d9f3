import type {
  CancelMessageRequest,
  GetMessageRequest,
  ListMessagesRequest,
  RecipientStatusRequest,
  RescheduleMessageRequest,
  ResubscribeRequest,
} from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { cancelMessage } from '../../domain/messages/cancel-message.js';
import { getMessage } from '../../domain/messages/get-message.js';
import { listMessages } from '../../domain/messages/list-messages.js';
import { rescheduleMessage } from '../../domain/messages/reschedule-message.js';
import { getRecipientStatus } from '../../domain/recipients/get-recipient-status.js';
import { resubscribeRecipient } from '../../domain/recipients/resubscribe-recipient.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

const ACCESS = ['trial', 'project', 'environment'] as const;

export function recipientRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'getRecipientStatus', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await getRecipientStatus(deps, authOf(req), req.body as RecipientStatusRequest)),
    }),
  });
  apiRoute(app, 'resubscribeRecipient', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await resubscribeRecipient(deps, authOf(req), req.body as ResubscribeRequest)),
    }),
  });
  apiRoute(app, 'getMessage', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await getMessage(deps, authOf(req), req.body as GetMessageRequest)),
    }),
  });
  apiRoute(app, 'listMessages', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await listMessages(deps, authOf(req), req.body as ListMessagesRequest)),
    }),
  });
  apiRoute(app, 'cancelMessage', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await cancelMessage(deps, authOf(req), req.body as CancelMessageRequest)),
    }),
  });
  apiRoute(app, 'rescheduleMessage', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await rescheduleMessage(deps, authOf(req), req.body as RescheduleMessageRequest)),
    }),
  });
}
