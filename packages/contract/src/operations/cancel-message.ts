// POST /v1/messages/cancel: a scheduled or queued message of the key's environment that no worker
// has claimed becomes `canceled` and is never sent (DESIGN.md §12). The quota counted it when it
// was accepted and keeps counting it.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { MessageSummary } from './shared/message.js';
import type { Operation } from './shared/operation.js';

export const MessageIdField = Type.String({ minLength: 1, maxLength: 64, description: 'msg_…' });

export const CancelMessageRequest = Type.Object(
  { messageId: MessageIdField },
  { additionalProperties: false },
);
export type CancelMessageRequest = Static<typeof CancelMessageRequest>;

export const CancelMessageResponse = Type.Object(
  { ok: Type.Literal(true), message: MessageSummary },
  { additionalProperties: false },
);
export type CancelMessageResponse = Static<typeof CancelMessageResponse>;

export const cancelMessage = {
  method: 'POST',
  path: '/v1/messages/cancel',
  sdk: 'messages.cancel',
  summary: 'Cancel a scheduled or queued message before a worker takes it (extension)',
  body: CancelMessageRequest,
  response: CancelMessageResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'message_not_found',
    'message_not_cancelable',
  ],
  example: {
    body: { messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
    response: {
      ok: true,
      message: {
        messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        templateId: 'order-shipped',
        templateVersion: 'v1',
        status: 'canceled',
        createdAt: '2026-11-22T10:15:30.123Z',
        updatedAt: '2026-11-22T11:02:00.000Z',
        scheduledAt: '2026-11-23T09:00:00.000Z',
        metadata: { orderId: 'ord_8812' },
      },
    },
  },
} as const satisfies Operation;
