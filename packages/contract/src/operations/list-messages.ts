// POST /v1/messages/list: the key's environment's messages, newest first, filtered, a page at a
// time (DESIGN.md §12). Metadata only: never subject, template data or body.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { BulkJobId } from './shared/ids.js';
import { CreatedAfter, CreatedBefore, ListCursor, NextCursor, PageSize } from './shared/list-fields.js';
import { MessageStatus, MessageSummary } from './shared/message.js';
import { METADATA_KEY_PATTERN, METADATA_VALUE_MAX, METADATA_VALUE_PATTERN } from './shared/metadata.js';
import type { Operation } from './shared/operation.js';

export const MESSAGE_LIST_PAGE_SIZE_DEFAULT = 50;
export const MESSAGE_LIST_PAGE_SIZE_MAX = 100;
export const MESSAGE_LIST_METADATA_FILTERS_MAX = 3;

export const ListMessagesRequest = Type.Object(
  {
    status: Type.Optional(
      Type.Array(MessageStatus, {
        minItems: 1,
        maxItems: 11,
        uniqueItems: true,
        description: 'messages in any of these statuses',
      }),
    ),
    templateId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    to: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 320,
        description: 'the recipient, exactly (case-insensitive; an IDN domain in either form)',
      }),
    ),
    createdAfter: CreatedAfter('created'),
    createdBefore: CreatedBefore('created'),
    metadata: Type.Optional(
      Type.Record(
        Type.String({ pattern: METADATA_KEY_PATTERN }),
        Type.String({ maxLength: METADATA_VALUE_MAX, pattern: METADATA_VALUE_PATTERN }),
        {
          additionalProperties: false,
          minProperties: 1,
          maxProperties: MESSAGE_LIST_METADATA_FILTERS_MAX,
          description: 'up to 3 pairs, each matched exactly: messages whose metadata has every one',
        },
      ),
    ),
    bulkJobId: Type.Optional(BulkJobId),
    pageSize: PageSize(MESSAGE_LIST_PAGE_SIZE_DEFAULT, MESSAGE_LIST_PAGE_SIZE_MAX),
    cursor: ListCursor(300),
  },
  { additionalProperties: false },
);
export type ListMessagesRequest = Static<typeof ListMessagesRequest>;

export const ListedMessage = Type.Composite(
  [MessageSummary, Type.Object({ emailMasked: Type.String({ description: 'e.g. j***@example.com' }) })],
  { additionalProperties: false },
);
export type ListedMessage = Static<typeof ListedMessage>;

export const ListMessagesResponse = Type.Object(
  {
    ok: Type.Literal(true),
    messages: Type.Array(ListedMessage, { description: 'newest first' }),
    nextCursor: NextCursor,
  },
  { additionalProperties: false },
);
export type ListMessagesResponse = Static<typeof ListMessagesResponse>;

export const listMessages = {
  method: 'POST',
  path: '/v1/messages/list',
  sdk: 'messages.list',
  summary: 'The environment’s messages, newest first, filtered, a page at a time (extension)',
  body: ListMessagesRequest,
  response: ListMessagesResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { status: ['bounced'], metadata: { userId: 'u_4821' }, pageSize: 20 },
    response: {
      ok: true,
      messages: [
        {
          messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
          templateId: 'password-reset',
          templateVersion: 'v1',
          status: 'bounced',
          createdAt: '2026-11-22T10:15:30.123Z',
          updatedAt: '2026-11-22T10:15:31.004Z',
          error: {
            code: 'hard_bounce',
            message: '550 5.1.1 <j***@example.com>: Recipient address rejected',
            reason: 'user_unknown',
          },
          metadata: { userId: 'u_4821', flow: 'password-reset' },
          emailMasked: 'j***@example.com',
        },
      ],
      nextCursor: null,
    },
  },
} as const satisfies Operation;
