// POST /v1/recipients/status: a recipient's state and recent messages (DESIGN.md §5).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { MessageSummary } from './shared/message.js';
import type { Operation } from './shared/operation.js';
import { NullableTimestamp } from './shared/timestamp.js';

export const RecipientStatusRequest = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320, description: 'the recipient address' }),
    limit: Type.Optional(
      Type.Number({ description: 'recent messages to return: default 10, clamped to 1 through 50' }),
    ),
  },
  { additionalProperties: false },
);
export type RecipientStatusRequest = Static<typeof RecipientStatusRequest>;

export const RecipientStatus = Type.Object(
  {
    emailMasked: Type.String({ description: 'e.g. j***@example.com' }),
    recipientDomain: Type.String(),
    state: Type.Union(
      [
        Type.Literal('clear'),
        Type.Literal('unsubscribed'),
        Type.Literal('cooldown'),
        Type.Literal('suppressed'),
        Type.Literal('complained'),
      ],
      { description: 'by precedence: complained, suppressed, cooldown, unsubscribed, clear' },
    ),
    subscription: Type.Object(
      {
        scope: Type.Literal('app_notifications'),
        status: Type.Union([Type.Literal('subscribed'), Type.Literal('unsubscribed')]),
        unsubscribedAt: NullableTimestamp,
        resubscribedAt: NullableTimestamp,
      },
      { additionalProperties: false },
    ),
    delivery: Type.Object(
      {
        hardBounceCount: Type.Integer({ minimum: 0, description: 'lifetime' }),
        complaintCount: Type.Integer({ minimum: 0, description: 'lifetime' }),
        cooldownUntil: NullableTimestamp,
        complainedAt: NullableTimestamp,
      },
      { additionalProperties: false },
    ),
    canSendNotifications: Type.Boolean({
      description:
        "true only when the recipient's state lets a notification template through now (not the environment's sending status or quota)",
    }),
  },
  { additionalProperties: false },
);
export type RecipientStatus = Static<typeof RecipientStatus>;

export const RecipientStatusResponse = Type.Object(
  {
    ok: Type.Literal(true),
    recipient: RecipientStatus,
    messages: Type.Array(MessageSummary, { description: 'newest first' }),
  },
  { additionalProperties: false },
);
export type RecipientStatusResponse = Static<typeof RecipientStatusResponse>;

export const getRecipientStatus = {
  method: 'POST',
  path: '/v1/recipients/status',
  sdk: 'recipients.status',
  summary: 'A recipient’s state and recent messages',
  body: RecipientStatusRequest,
  response: RecipientStatusResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  invalidRequestMessage: 'Invalid recipient status request: expected a valid recipient email.',
  example: {
    body: { email: 'jane@example.com', limit: 10 },
    response: {
      ok: true,
      recipient: {
        emailMasked: 'j***@example.com',
        recipientDomain: 'example.com',
        state: 'clear',
        subscription: {
          scope: 'app_notifications',
          status: 'subscribed',
          unsubscribedAt: null,
          resubscribedAt: null,
        },
        delivery: { hardBounceCount: 0, complaintCount: 0, cooldownUntil: null, complainedAt: null },
        canSendNotifications: true,
      },
      messages: [
        {
          messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
          templateId: 'login-code',
          templateVersion: 'v1',
          status: 'sent',
          createdAt: '2026-11-22T10:15:30.123Z',
          updatedAt: '2026-11-22T10:15:31.004Z',
          sentAt: '2026-11-22T10:15:31.004Z',
          metadata: { userId: 'u_4821' },
        },
      ],
    },
  },
} as const satisfies Operation;
