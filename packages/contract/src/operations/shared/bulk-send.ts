// What a bulk send and its dry run share (DESIGN.md §7): the body, its rules, and the reasons a
// contact is skipped.
import { type Static, Type } from '@sinclair/typebox';
import { GroupSlug } from './group.js';
import { Metadata } from './metadata.js';

const ContactRef = Type.String({
  minLength: 1,
  maxLength: 320,
  description: 'a contact id (ct_…) or a contact email',
});

/**
 * The seed's reference body (projectId, environmentId, templateId, templateData, contactIds,
 * groupSlug) and its tutorial alias (templateId, to, data) in one object: `data` stands for
 * `templateData` (one of them, not both), `to` for one contact or a list; projectId and
 * environmentId are required with `templateData` and default to the key's with `data`. The
 * use-case checks the combinations (400 invalid_request with a path).
 */
export const BulkSendRequest = Type.Object(
  {
    projectId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "the key's own project" }),
    ),
    environmentId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "the key's own environment" }),
    ),
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    templateVersion: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: 'extension; default: the latest published version',
      }),
    ),
    templateData: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'template data, validated once; text fields may hold {{contact.name}}, {{contact.email}} and {{contact.customFields.KEY}}',
        },
      ),
    ),
    contactIds: Type.Optional(
      Type.Array(ContactRef, { minItems: 1, maxItems: 1000, description: 'contact ids or emails' }),
    ),
    groupSlug: Type.Optional(GroupSlug),
    data: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'tutorial alias of templateData' }),
    ),
    to: Type.Optional(
      Type.Union([ContactRef, Type.Array(ContactRef, { minItems: 1, maxItems: 1000 })], {
        description: 'tutorial alias: one contact email or id, or a list of them',
      }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type BulkSendRequest = Static<typeof BulkSendRequest>;

/** A bulk send names its recipients, gives its data once, and names its scope with templateData. */
export const BULK_SEND_RULES = {
  allOf: [
    {
      description: 'recipients: contactIds, groupSlug or to (any of them; they add up)',
      anyOf: [{ required: ['contactIds'] }, { required: ['groupSlug'] }, { required: ['to'] }],
    },
    {
      description: 'the template data: templateData or its alias data, one of them',
      oneOf: [{ required: ['templateData'] }, { required: ['data'] }],
    },
  ],
  dependentRequired: { templateData: ['projectId', 'environmentId'] },
} as const;

export const SKIP_REASONS = ['unsubscribed', 'complained', 'suppressed', 'duplicate', 'not_found'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const SkipCounts = Type.Object(
  {
    unsubscribed: Type.Integer({ minimum: 0, description: 'notification templates only' }),
    complained: Type.Integer({ minimum: 0 }),
    suppressed: Type.Integer({ minimum: 0, description: 'in a hard-bounce cooldown or suppressed' }),
    duplicate: Type.Integer({ minimum: 0, description: 'named more than once' }),
    not_found: Type.Integer({ minimum: 0, description: 'no contact of the tenant by that id or email' }),
  },
  { additionalProperties: false, description: 'one reason per skipped contact' },
);
