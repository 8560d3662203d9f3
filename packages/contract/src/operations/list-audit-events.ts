// POST /v1/audit/list: the environment's audit events, newest first, a page at a time (DESIGN.md §12).
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import { CreatedAfter, CreatedBefore, ListCursor, NextCursor, PageSize } from './shared/list-fields.js';
import type { Operation } from './shared/operation.js';
import { Timestamp } from './shared/timestamp.js';

export const AUDIT_PAGE_SIZE_DEFAULT = 50;
export const AUDIT_PAGE_SIZE_MAX = 100;

export const ListAuditEventsRequest = Type.Object(
  {
    action: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z_]+(\\.[a-z_-]+)+$', maxLength: 64 }), {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description: 'events of any of these actions, e.g. ["api_key.created", "recipient.resubscribed"]',
      }),
    ),
    createdAfter: CreatedAfter('recorded'),
    createdBefore: CreatedBefore('recorded'),
    pageSize: PageSize(AUDIT_PAGE_SIZE_DEFAULT, AUDIT_PAGE_SIZE_MAX),
    cursor: ListCursor(300),
  },
  { additionalProperties: false },
);
export type ListAuditEventsRequest = Static<typeof ListAuditEventsRequest>;

export const AuditEventItem = Type.Object(
  {
    id: Type.String({ pattern: '^evt_' }),
    actor: Type.String({ description: 'who: key:<keyId>, recipient (an unsubscribe), system:…, admin:…' }),
    action: Type.String({ description: 'what, e.g. api_key.created, recipient.resubscribed' }),
    targetType: Type.String(),
    targetId: Type.String({ description: 'as stored: a recipient is <environmentId>:<masked address>' }),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'as recorded; addresses masked' }),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);

export const ListAuditEventsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    events: Type.Array(AuditEventItem, { description: 'newest first' }),
    nextCursor: NextCursor,
  },
  { additionalProperties: false },
);
export type ListAuditEventsResponse = Static<typeof ListAuditEventsResponse>;

export const listAuditEvents = {
  method: 'POST',
  path: '/v1/audit/list',
  sdk: 'audit.list',
  summary: 'The environment’s audit events, newest first, a page at a time (extension; full keys only)',
  body: ListAuditEventsRequest,
  response: ListAuditEventsResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: {
    body: { action: ['api_key.created', 'api_key.revoked'], pageSize: 20 },
    response: {
      ok: true,
      events: [
        {
          id: 'evt_01M81C1XJB7Y4KHB01G4B1P0M5',
          actor: 'key:key_01M81C1XJBK8H34T187GBDP8V9',
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: 'key_01M81C1XJB2NNCEJ58HV846MWZ',
          details: { scope: 'send', templateCategories: null, name: 'wrapper' },
          createdAt: '2026-11-22T10:15:30.123Z',
        },
      ],
      nextCursor: null,
    },
  },
} as const satisfies Operation;
