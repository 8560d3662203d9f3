// POST /v1/messages/get: one message's metadata and event timeline (extension).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { MessageSummary } from './shared/message.js';
import type { Operation } from './shared/operation.js';
import { Timestamp } from './shared/timestamp.js';

export const GetMessageRequest = Type.Object(
  { messageId: Type.String({ minLength: 1, maxLength: 64, description: 'msg_…' }) },
  { additionalProperties: false },
);
export type GetMessageRequest = Static<typeof GetMessageRequest>;

/** The events a message's timeline shows (POST /v1/messages/get). */
export const MESSAGE_EVENT_TYPES = [
  'accepted',
  'rescheduled',
  'deferred',
  'sent',
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'expired',
  'failed',
  'canceled',
  'error',
] as const;

export const MessageEvent = Type.Object(
  {
    type: Type.Union(
      MESSAGE_EVENT_TYPES.map((t) => Type.Literal(t)),
      { description: 'what happened' },
    ),
    at: Timestamp,
    smtpCode: Type.Optional(Type.Integer({ description: 'the SMTP reply code' })),
    enhancedCode: Type.Optional(Type.String({ description: 'RFC 3463 status, e.g. 5.1.1' })),
    response: Type.Optional(Type.String({ description: 'the SMTP reply or the report’s diagnostic' })),
    attempt: Type.Optional(Type.Integer({ minimum: 1 })),
    nextAttemptAt: Type.Optional(Timestamp),
    scheduledAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'the due time a scheduled send was accepted with, or a reschedule set',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        description:
          'a failure’s reason in the one vocabulary (deferred, bounced, failed: docs/feedback.md), why a message was suppressed (the refusal code), or which step an internal error interrupted (error)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MessageEvent = Static<typeof MessageEvent>;

export const GetMessageResponse = Type.Object(
  {
    ok: Type.Literal(true),
    message: Type.Composite(
      [
        MessageSummary,
        Type.Object({
          emailMasked: Type.String(),
          category: Type.Union([
            Type.Literal('security'),
            Type.Literal('transactional'),
            Type.Literal('notification'),
          ]),
          attempts: Type.Integer({ minimum: 0 }),
          expiresAt: Timestamp,
        }),
      ],
      { additionalProperties: false },
    ),
    events: Type.Array(MessageEvent, { description: 'oldest first' }),
  },
  { additionalProperties: false },
);
export type GetMessageResponse = Static<typeof GetMessageResponse>;

export const getMessage = {
  method: 'POST',
  path: '/v1/messages/get',
  sdk: 'messages.get',
  summary: 'One message’s metadata and event timeline (extension)',
  body: GetMessageRequest,
  response: GetMessageResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'message_not_found'],
  example: {
    body: { messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
    response: {
      ok: true,
      message: {
        messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        templateId: 'login-code',
        templateVersion: 'v1',
        status: 'sent',
        createdAt: '2026-11-22T10:15:30.123Z',
        updatedAt: '2026-11-22T10:15:31.004Z',
        sentAt: '2026-11-22T10:15:31.004Z',
        emailMasked: 'j***@example.com',
        category: 'security',
        attempts: 1,
        expiresAt: '2026-11-22T11:15:30.123Z',
        metadata: { userId: 'u_4821' },
      },
      events: [
        { type: 'accepted', at: '2026-11-22T10:15:30.123Z' },
        {
          type: 'sent',
          at: '2026-11-22T10:15:31.004Z',
          smtpCode: 250,
          response: '250 2.0.0 Ok: queued as 4F2A1',
          attempt: 1,
        },
      ],
    },
  },
} as const satisfies Operation;
