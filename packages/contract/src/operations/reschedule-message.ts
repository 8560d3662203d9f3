// POST /v1/messages/reschedule: a `scheduled` message of the key's environment gets a new due time
// (DESIGN.md §12), with the limits of scheduledAt on a send, counted from when it was accepted.
import { type Static, Type } from '@sinclair/typebox';
import { MessageIdField } from './cancel-message.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { MessageSummary } from './shared/message.js';
import type { Operation } from './shared/operation.js';
import { ScheduledAt } from './shared/schedule.js';

export const RescheduleMessageRequest = Type.Object(
  { messageId: MessageIdField, scheduledAt: ScheduledAt },
  { additionalProperties: false },
);
export type RescheduleMessageRequest = Static<typeof RescheduleMessageRequest>;

export const RescheduleMessageResponse = Type.Object(
  { ok: Type.Literal(true), message: MessageSummary },
  { additionalProperties: false },
);
export type RescheduleMessageResponse = Static<typeof RescheduleMessageResponse>;

export const rescheduleMessage = {
  method: 'POST',
  path: '/v1/messages/reschedule',
  sdk: 'messages.reschedule',
  summary: 'Move a scheduled message to another time (extension)',
  body: RescheduleMessageRequest,
  response: RescheduleMessageResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'message_not_found',
    'message_not_scheduled',
  ],
  example: {
    body: { messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', scheduledAt: '2026-11-24T09:00:00Z' },
    response: {
      ok: true,
      message: {
        messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        templateId: 'order-shipped',
        templateVersion: 'v1',
        status: 'scheduled',
        createdAt: '2026-11-22T10:15:30.123Z',
        updatedAt: '2026-11-22T11:02:00.000Z',
        scheduledAt: '2026-11-24T09:00:00.000Z',
        metadata: { orderId: 'ord_8812' },
      },
    },
  },
} as const satisfies Operation;
