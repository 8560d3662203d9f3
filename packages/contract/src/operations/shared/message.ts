// A message as the recipient status and the message timeline show it (DESIGN.md §4, §5).
import { type Static, Type } from '@sinclair/typebox';
import { FAILURE_REASONS, MESSAGE_ERROR_CODES } from '../../message-errors.js';
import { Metadata } from './metadata.js';
import { Timestamp } from './timestamp.js';

export const MESSAGE_STATUSES = [
  'scheduled',
  'queued',
  'sending',
  'deferred',
  'sent',
  'delivered',
  'bounced',
  'failed',
  'suppressed',
  'expired',
  'complained',
  'canceled',
] as const;

/**
 * A message's state (DESIGN.md §4). One enum rather than a union of literals: a wrong value is
 * one error naming the statuses, not one per literal.
 */
export const MessageStatus = Type.Unsafe<(typeof MESSAGE_STATUSES)[number]>({
  type: 'string',
  enum: [...MESSAGE_STATUSES],
  description:
    'scheduled until due, then queued → sending → sent → delivered; deferred while retried; or a final failure; canceled by POST /v1/messages/cancel or with its bulk send',
});

/** What went wrong last, when something did: a code and the remote server's words. */
const MessageError = Type.Object(
  {
    code: Type.Union(
      MESSAGE_ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'one of the message error codes (docs/errors.md)' },
    ),
    message: Type.String({ description: 'the SMTP reply or the reason' }),
    reason: Type.Optional(
      Type.Union(
        FAILURE_REASONS.map((r) => Type.Literal(r)),
        {
          description:
            'why, in the one failure vocabulary (docs/feedback.md); on failures read from a reply or a report',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** One message, metadata only: never subject, data or body. */
export const MessageSummary = Type.Object(
  {
    messageId: Type.String({ pattern: '^msg_' }),
    templateId: Type.String(),
    templateVersion: Type.String(),
    status: MessageStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    scheduledAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'when a scheduled send is (or was) due' }),
    ),
    sentAt: Type.Optional(Timestamp),
    deliveredAt: Type.Optional(Timestamp),
    bulkJobId: Type.Optional(Type.String()),
    error: Type.Optional(MessageError),
    metadata: Metadata,
  },
  { additionalProperties: false },
);
export type MessageSummary = Static<typeof MessageSummary>;
