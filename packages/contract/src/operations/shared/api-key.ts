// An API key as the keys operations show it (DESIGN.md §12): never its secret, which is shown once
// when the key is created.
import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from './timestamp.js';

/** What a key may call: `full` every operation, `send` POST /v1/send, the batch and GET /v1/quota. */
export const KEY_SCOPES = ['full', 'send'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const KeyScopeSchema = Type.Unsafe<KeyScope>({
  type: 'string',
  enum: [...KEY_SCOPES],
  description: 'full: every operation; send: POST /v1/send, POST /v1/send/batch and GET /v1/quota only',
});

export const TEMPLATE_CATEGORIES = ['security', 'transactional', 'notification'] as const;
export type TemplateCategoryName = (typeof TEMPLATE_CATEGORIES)[number];
export const TemplateCategories = Type.Array(
  Type.Unsafe<TemplateCategoryName>({ type: 'string', enum: [...TEMPLATE_CATEGORIES] }),
  { minItems: 1, maxItems: 3, uniqueItems: true },
);

export const KeyId = Type.String({ pattern: '^key_[0-9A-HJKMNP-TV-Z]{26}$', description: 'key_… id' });

export const ApiKeyInfo = Type.Object(
  {
    keyId: KeyId,
    hint: Type.String({
      description: 'how the key looks, to recognise it: msk_<id>_…<the last 4 characters of its secret>',
    }),
    name: Type.Union([Type.String(), Type.Null()]),
    scope: KeyScopeSchema,
    templateCategories: Type.Union([TemplateCategories, Type.Null()], {
      description: 'a send key limited to these template categories; null: every category',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    createdAt: Timestamp,
    lastUsedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        'when the key last authenticated a request (written at most once a minute per key; null: never)',
    }),
    revokedAt: NullableTimestamp,
  },
  { additionalProperties: false },
);
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;

export const API_KEY_EXAMPLE: ApiKeyInfo = {
  keyId: 'key_01M81C1XJB7Y4KHB01G4B1P0M5',
  hint: 'msk_01M81C1XJB7Y4KHB01G4B1P0M5_…x7Qa',
  name: 'wrapper (send only)',
  scope: 'send',
  templateCategories: null,
  status: 'active',
  createdAt: '2026-11-22T10:15:30.123Z',
  lastUsedAt: '2026-11-22T11:02:00.000Z',
  revokedAt: null,
};
