// The core API's contract: every operation of the seed (and its extensions) with one name used in
// three places — the route (`POST /v1/send`), the use-case (`sendEmail`), the SDK method
// (`client.emails.send()`) — and the request and response
// schemas and the error codes each can answer. The server registers its routes from this table,
// @fastify/swagger turns it into the OpenAPI document, and the client is typed by it.
// Browser-safe (TypeBox only).
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { UNSAFE_DISPLAY_CHARACTERS } from './display-name.js';
import type { CoreErrorCode } from './errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from './http.js';
import { MESSAGE_ERROR_CODES } from './message-errors.js';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, with milliseconds' });

// ---- GET /v1/quota

export const Quota = Type.Object(
  {
    tenantId: Type.String({ pattern: '^ten_' }),
    projectId: Type.String({ pattern: '^prj_' }),
    environmentId: Type.String({ pattern: '^env_' }),
    planId: Type.String(),
    accessStatus: Type.Union([Type.Literal('active'), Type.Literal('trialing'), Type.Literal('suspended')], {
      description: 'billing access state (an ended trial is answered with 402 trial_expired instead)',
    }),
    sendingStatus: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('blocked')]),
    period: Type.Object(
      {
        id: Type.String({
          pattern: '^[0-9]{4}-[0-9]{2}$',
          description: 'the calendar month in UTC, YYYY-MM',
        }),
        startsAt: Timestamp,
        endsAt: { ...Timestamp, description: 'the start of the next month (exclusive)' },
      },
      { additionalProperties: false },
    ),
    monthly: Type.Object(
      {
        limit: Type.Integer({ minimum: 0 }),
        used: Type.Integer({ minimum: 0, description: 'accepted messages of the whole tenant this month' }),
        remaining: Type.Integer({ minimum: 0 }),
        overageAllowed: Type.Boolean(),
        overageEmails: Type.Integer({ minimum: 0 }),
        status: Type.Union([Type.Literal('available'), Type.Literal('overage'), Type.Literal('exhausted')]),
      },
      { additionalProperties: false },
    ),
    environment: Type.Object(
      { usedThisMonth: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Quota = Static<typeof Quota>;

export const QuotaResponse = Type.Object(
  { ok: Type.Literal(true), quota: Quota },
  { additionalProperties: false },
);
export type QuotaResponse = Static<typeof QuotaResponse>;

// ---- contacts and groups (DESIGN.md §7): shared pieces

/** A group's stable identity in v1. */
export const GROUP_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
export const GroupSlug = Type.String({
  pattern: GROUP_SLUG_PATTERN,
  description: 'lowercase letters, digits and hyphens, 1 to 63 characters, starting with a letter or digit',
});
export const ContactId = Type.String({ pattern: '^ct_[0-9A-HJKMNP-TV-Z]{26}$', description: 'ct_… id' });
export const BulkJobId = Type.String({ pattern: '^job_[0-9A-HJKMNP-TV-Z]{26}$', description: 'job_… id' });

// ---- POST /v1/send

/** Body shape only (DESIGN.md §3 step 2); from, fromName and replyTo have their own codes later. */
export const SendRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. login-code' }),
    to: Type.String({ minLength: 1, maxLength: 320, description: 'one bare address, no display name' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "template data, checked against the template version's JSON Schema",
      },
    ),
    templateVersion: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'default: the latest published version' }),
    ),
    from: Type.Optional(Type.String({ maxLength: 320, description: 'an address on the sending domain' })),
    fromName: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'at most 120 characters; no line breaks, control, bidi or invisible characters',
      }),
    ),
    replyTo: Type.Optional(Type.String({ maxLength: 320 })),
  },
  { additionalProperties: false },
);
export type SendRequest = Static<typeof SendRequest>;

export const SendResponse = Type.Object(
  {
    ok: Type.Literal(true),
    status: Type.Literal('accepted', { description: 'accepted and queued; not yet delivered' }),
    messageId: Type.String({ pattern: '^msg_' }),
    idempotent: Type.Boolean({ description: 'true when this repeats an earlier accepted request' }),
  },
  { additionalProperties: false },
);
export type SendResponse = Static<typeof SendResponse>;

export const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ pattern: IDEMPOTENCY_KEY_PATTERN, description: '1–120 printable ASCII characters' }),
  ),
});

// ---- recipients and messages (DESIGN.md §5)

const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** A message's state (DESIGN.md §4). */
export const MessageStatus = Type.Union(
  [
    Type.Literal('queued'),
    Type.Literal('sending'),
    Type.Literal('deferred'),
    Type.Literal('sent'),
    Type.Literal('delivered'),
    Type.Literal('bounced'),
    Type.Literal('failed'),
    Type.Literal('suppressed'),
    Type.Literal('expired'),
    Type.Literal('complained'),
    Type.Literal('canceled'),
  ],
  {
    description:
      'queued → sending → sent → delivered; deferred while retried; or a final failure; canceled with its bulk send',
  },
);

/** What went wrong last, when something did: a code and the remote server's words. */
const MessageError = Type.Object(
  {
    code: Type.Union(
      MESSAGE_ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'one of the message error codes (docs/errors.md)' },
    ),
    message: Type.String({ description: 'the SMTP reply or the reason' }),
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
    sentAt: Type.Optional(Timestamp),
    deliveredAt: Type.Optional(Timestamp),
    bulkJobId: Type.Optional(Type.String()),
    error: Type.Optional(MessageError),
  },
  { additionalProperties: false },
);
export type MessageSummary = Static<typeof MessageSummary>;

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

export const ResubscribeRequest = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    scope: Type.Literal('app_notifications', { description: 'the only scope of v1' }),
  },
  { additionalProperties: false },
);
export type ResubscribeRequest = Static<typeof ResubscribeRequest>;

export const OkResponse = Type.Object({ ok: Type.Literal(true) }, { additionalProperties: false });

export const GetMessageRequest = Type.Object(
  { messageId: Type.String({ minLength: 1, maxLength: 64, description: 'msg_…' }) },
  { additionalProperties: false },
);
export type GetMessageRequest = Static<typeof GetMessageRequest>;

// ---- relay events: POST /v1/events/intake, POST /v1/events/ses

const ENVIRONMENT_ID = '^env_[0-9A-HJKMNP-TV-Z]{26}$';

export const RelayEventRequest = Type.Object(
  {
    environmentId: Type.String({
      pattern: ENVIRONMENT_ID,
      description:
        'the environment whose intake secret signed the event (mailsvc admin events create-secret)',
    }),
    type: Type.Union([Type.Literal('delivered'), Type.Literal('bounced'), Type.Literal('complained')]),
    messageId: Type.Optional(
      Type.String({
        pattern: '^msg_[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$',
        description: 'our message id, msg_… (the X-Mailsvc-Message-ID header)',
      }),
    ),
    messageIdHeader: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 998,
        description: 'the Message-ID header of the message, with or without angle brackets',
      }),
    ),
    recipient: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'the recipient the event is about' }),
    ),
    bounce: Type.Optional(
      Type.Object(
        {
          type: Type.Union([Type.Literal('permanent'), Type.Literal('transient')], {
            description: 'permanent: given up; transient bounces change nothing',
          }),
          status: Type.Optional(
            Type.String({
              pattern: '^[245]\\.[0-9]{1,3}\\.[0-9]{1,3}$',
              description: 'RFC 3463 status, e.g. 5.1.1',
            }),
          ),
          diagnostic: Type.Optional(
            Type.String({ maxLength: 1000, description: 'the remote server’s words' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'One event. Give messageId or messageIdHeader; a bounced event needs bounce.',
  },
);
export type RelayEventRequest = Static<typeof RelayEventRequest>;

/** A relay event names its message, and a bounce says what bounced. */
export const RELAY_EVENT_RULES = {
  allOf: [
    {
      description: 'the message: messageId or messageIdHeader',
      anyOf: [{ required: ['messageId'] }, { required: ['messageIdHeader'] }],
    },
    {
      description: 'a bounced event says what bounced (bounce)',
      anyOf: [{ properties: { type: { enum: ['delivered', 'complained'] } } }, { required: ['bounce'] }],
    },
  ],
} as const;

export const RELAY_EVENT_OUTCOMES = [
  'applied',
  'duplicate',
  'ignored',
  'replayed',
  'unknown_message',
] as const;

export const RelayEventResponse = Type.Object(
  {
    ok: Type.Literal(true),
    outcome: Type.Union(
      RELAY_EVENT_OUTCOMES.map((o) => Type.Literal(o)),
      {
        description:
          'applied: the message changed; duplicate: already known; ignored: nothing to change (a transient bounce, an event for a message that was never handed over); replayed: this webhook-id was seen before; unknown_message: no such message in the environment',
      },
    ),
  },
  { additionalProperties: false },
);
export type RelayEventResponse = Static<typeof RelayEventResponse>;

export const SnsMessageRequest = Type.Object(
  {
    Type: Type.String({ maxLength: 64 }),
    MessageId: Type.String({ maxLength: 128 }),
    TopicArn: Type.String({ maxLength: 256 }),
    Message: Type.String({ maxLength: 262_144 }),
    Timestamp: Type.String({ maxLength: 64 }),
    SignatureVersion: Type.String({ maxLength: 8 }),
    Signature: Type.String({ maxLength: 4096 }),
    SigningCertURL: Type.String({ maxLength: 2048 }),
    Subject: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
    SubscribeURL: Type.Optional(Type.String({ maxLength: 2048 })),
    Token: Type.Optional(Type.String({ maxLength: 2048 })),
    UnsubscribeURL: Type.Optional(Type.String({ maxLength: 2048 })),
    MessageAttributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  {
    additionalProperties: false,
    description:
      'An Amazon SNS HTTP(S) message, as SNS posts it (Content-Type text/plain or application/json)',
  },
);
export type SnsMessageRequest = Static<typeof SnsMessageRequest>;

export const SesEventResponse = Type.Object(
  {
    ok: Type.Literal(true),
    outcome: Type.Union(
      [...RELAY_EVENT_OUTCOMES, 'subscribed' as const].map((o) => Type.Literal(o)),
      { description: 'as for /v1/events/intake; subscribed: a SubscriptionConfirmation was confirmed' },
    ),
  },
  { additionalProperties: false },
);
export type SesEventResponse = Static<typeof SesEventResponse>;

/** The events a message's timeline shows (POST /v1/messages/get). */
export const MESSAGE_EVENT_TYPES = [
  'accepted',
  'deferred',
  'sent',
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'expired',
  'failed',
  'canceled',
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
    reason: Type.Optional(Type.String({ description: 'why a message was suppressed' })),
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

// ---- contacts: POST /v1/contacts/{upsert,upsert-many,get,list} (DESIGN.md §7)

/** A custom field's key: usable as `{{contact.customFields.KEY}}`, 1 to 64 characters. */
export const CUSTOM_FIELD_KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';
export const CUSTOM_FIELDS_MAX = 50;
export const CUSTOM_FIELD_STRING_MAX = 1000;
export const CONTACT_NAME_MAX = 200;
export const CONTACT_GROUPS_MAX = 100;
export const UPSERT_MANY_MAX = 1000;
export const LIST_PAGE_SIZE_DEFAULT = 50;
export const LIST_PAGE_SIZE_MAX = 200;
export const LIST_FILTERS_MAX = 20;

export const CONTACT_STATUSES = ['active', 'unsubscribed', 'cooldown', 'suppressed', 'complained'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];
// One enum rather than a union of literals: a wrong value is one error, not one per literal.
export const ContactStatus = Type.Unsafe<ContactStatus>({
  type: 'string',
  enum: [...CONTACT_STATUSES],
  description:
    "the recipient state in the key's environment, by precedence: complained, suppressed, cooldown, unsubscribed, active",
});

const CustomFieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const Contact = Type.Object(
  {
    id: ContactId,
    email: Type.String({ description: 'normalised: lowercase, IDN domain in punycode' }),
    name: Type.Union([Type.String(), Type.Null()]),
    groupSlugs: Type.Array(GroupSlug, { description: 'sorted' }),
    customFields: Type.Record(Type.String(), CustomFieldValue),
    status: ContactStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    lastEmailedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        'the latest message to the address from any environment of the tenant; read from messages, so it follows message retention',
    }),
    delivery: Type.Object(
      {
        sent: Type.Integer({ minimum: 0, description: 'messages handed to the relay' }),
        bounced: Type.Integer({ minimum: 0 }),
        complained: Type.Integer({ minimum: 0 }),
      },
      {
        additionalProperties: false,
        description:
          "messages to the address in the key's environment; read from messages, so they follow message retention",
      },
    ),
  },
  { additionalProperties: false },
);
export type Contact = Static<typeof Contact>;

export const UpsertContactRequest = Type.Object(
  {
    email: Type.String({
      format: 'email',
      maxLength: 320,
      description: "the contact's identity within the tenant: trimmed, lowercased, IDN domain in punycode",
    }),
    name: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: CONTACT_NAME_MAX,
        pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
        description:
          '1 to 200 characters, one line, no control, bidirectional or invisible characters; null clears it; absent leaves it as it is',
      }),
    ),
    groupSlugs: Type.Optional(
      Type.Array(GroupSlug, {
        maxItems: CONTACT_GROUPS_MAX,
        uniqueItems: true,
        description:
          "the contact's exact set of groups (at most 100); groups that do not exist are created; absent leaves the memberships as they are",
      }),
    ),
    customFields: Type.Optional(
      Type.Record(
        Type.String({ pattern: CUSTOM_FIELD_KEY_PATTERN }),
        Type.Unsafe<string | number | boolean | null>({
          type: ['string', 'number', 'boolean', 'null'],
          maxLength: CUSTOM_FIELD_STRING_MAX,
          description: 'a string (at most 1,000 characters), a number, a boolean, or null to delete the key',
        }),
        {
          additionalProperties: false,
          // 50 set and 50 deleted is the most a request can mean: at most 50 keys are ever stored.
          maxProperties: 2 * CUSTOM_FIELDS_MAX,
          description:
            'merged key by key into the stored fields; null deletes a key; keys are letters, digits, _ and -, starting with a letter or _, at most 64 characters (usable as {{contact.customFields.KEY}}); at most 50 keys after the merge, at most 100 in one request',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpsertContactRequest = Static<typeof UpsertContactRequest>;

export const UpsertContactResponse = Type.Object(
  { ok: Type.Literal(true), contact: Contact },
  { additionalProperties: false },
);
export type UpsertContactResponse = Static<typeof UpsertContactResponse>;

export const UpsertContactsRequest = Type.Object(
  {
    contacts: Type.Array(UpsertContactRequest, {
      minItems: 1,
      maxItems: UPSERT_MANY_MAX,
      description:
        '1 to 1,000 contacts, each as POST /v1/contacts/upsert takes it, each email once; all are written or none',
    }),
  },
  { additionalProperties: false },
);
export type UpsertContactsRequest = Static<typeof UpsertContactsRequest>;

export const UpsertContactsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    created: Type.Integer({ minimum: 0 }),
    updated: Type.Integer({ minimum: 0 }),
    contactIds: Type.Array(ContactId, { description: 'in the order of the request' }),
  },
  { additionalProperties: false },
);
export type UpsertContactsResponse = Static<typeof UpsertContactsResponse>;

export const GetContactRequest = Type.Object(
  {
    emailOrContactId: Type.String({ minLength: 1, maxLength: 320, description: 'a ct_… id or an email' }),
  },
  { additionalProperties: false },
);
export type GetContactRequest = Static<typeof GetContactRequest>;

export const GetContactResponse = UpsertContactResponse;
export type GetContactResponse = Static<typeof GetContactResponse>;

const PROJECT_ID = '^prj_[0-9A-HJKMNP-TV-Z]{26}$';

const setBranches = <F extends string, V extends TSchema>(field: F, value: V) =>
  [
    filterClause(field, 'eq', value),
    filterClause(field, 'neq', value),
    filterClause(field, 'in', Type.Array(value, { minItems: 1, maxItems: 100 })),
  ] as const;

function filterClause<F extends string, O extends string, V extends TSchema>(field: F, op: O, value: V) {
  return Type.Object(
    { field: Type.Literal(field), op: Type.Literal(op), value },
    { additionalProperties: false },
  );
}

const statusClauses = setBranches('status', ContactStatus);
const groupClauses = setBranches('group', GroupSlug);
const projectClauses = setBranches('project', Type.String({ pattern: PROJECT_ID, description: 'prj_… id' }));
const environmentClauses = setBranches(
  'environment',
  Type.String({ pattern: ENVIRONMENT_ID, description: 'env_… id' }),
);
const lastEmailedAtClause = Type.Object(
  {
    field: Type.Literal('lastEmailedAt'),
    op: Type.Unsafe<'before' | 'after'>({ type: 'string', enum: ['before', 'after'] }),
    value: Timestamp,
  },
  { additionalProperties: false },
);
const flagClauses = [
  filterClause(
    'suppressed',
    'eq',
    Type.Boolean({ description: 'in a hard-bounce cooldown or suppressed now' }),
  ),
  filterClause(
    'unsubscribed',
    'eq',
    Type.Boolean({ description: 'unsubscribed and not resubscribed since' }),
  ),
  filterClause('complained', 'eq', Type.Boolean({ description: 'complained (at any time)' })),
] as const;

const ContactFilterUnion = Type.Union([
  ...statusClauses,
  ...groupClauses,
  ...projectClauses,
  ...environmentClauses,
  lastEmailedAtClause,
  ...flagClauses,
]);
export type ContactFilter = Static<typeof ContactFilterUnion>;

/**
 * Branches told apart by one property (Ajv's `discriminator`): only the branch the tag names is
 * checked, so a wrong op or value is reported at its own path (/filters/0/op, /filters/0/value)
 * instead of once per branch.
 */
function byTag(tag: string, branches: readonly TSchema[], fixed: Record<string, TSchema> = {}): TSchema {
  const tags = branches.map(
    (b) => (b.properties as Record<string, { const?: string; enum?: string[] }>)[tag]!,
  );
  return Type.Unsafe({
    type: 'object',
    properties: { ...fixed, [tag]: { type: 'string', enum: tags.flatMap((t) => t.enum ?? [t.const!]) } },
    required: [...Object.keys(fixed), tag],
    discriminator: { propertyName: tag },
    oneOf: branches,
  });
}

/** One clause of POST /v1/contacts/list's filters: by field, then (eq, neq, in) by op. */
export const ContactFilter = Type.Unsafe<ContactFilter>({
  ...byTag('field', [
    byTag('op', statusClauses, { field: Type.Literal('status') }),
    byTag('op', groupClauses, { field: Type.Literal('group') }),
    byTag('op', projectClauses, { field: Type.Literal('project') }),
    byTag('op', environmentClauses, { field: Type.Literal('environment') }),
    lastEmailedAtClause,
    ...flagClauses,
  ]),
  description:
    "{field, op, value}: status, group, project, environment (eq, neq, in), lastEmailedAt (before, after), suppressed, unsubscribed, complained (eq, boolean); status and the flags are for the key's environment",
});

export const ListContactsRequest = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'a case-insensitive substring of the email or the name',
      }),
    ),
    filters: Type.Optional(
      Type.Array(ContactFilter, {
        maxItems: LIST_FILTERS_MAX,
        description: 'at most 20 clauses, all must hold',
      }),
    ),
    pageSize: Type.Optional(
      Type.Integer({ minimum: 1, description: 'default 50; a value above 200 is read as 200' }),
    ),
    cursor: Type.Optional(
      // One type list rather than a union, so a bad value gets one error at /cursor.
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 200,
        description: "the previous page's nextCursor; null or absent for the first page",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListContactsRequest = Static<typeof ListContactsRequest>;

export const ListContactsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    contacts: Type.Array(Contact, { description: 'by id: oldest first' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'pass it as cursor for the next page; null on the last page',
    }),
  },
  { additionalProperties: false },
);
export type ListContactsResponse = Static<typeof ListContactsResponse>;

// ---- contact groups: POST /v1/contacts/groups/{upsert,list,delete,add,remove} (DESIGN.md §7)

export const GroupName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
  description:
    'display name, 1 to 100 characters: one line, no control, bidirectional or invisible characters',
});

export const ContactGroup = Type.Object(
  {
    slug: GroupSlug,
    name: Type.String({ description: 'display name' }),
    contactCount: Type.Integer({ minimum: 0, description: 'contacts in the group' }),
    createdAt: Timestamp,
    updatedAt: { ...Timestamp, description: 'creation or the last change of its name' },
  },
  { additionalProperties: false },
);
export type ContactGroup = Static<typeof ContactGroup>;

export const UpsertGroupRequest = Type.Object(
  {
    name: GroupName,
    slug: Type.Optional({
      ...GroupSlug,
      description:
        'the group to create or rename; default: derived from name (lowercase, accents dropped, anything but a-z and 0-9 as -, at most 63 characters)',
    }),
  },
  { additionalProperties: false },
);
export type UpsertGroupRequest = Static<typeof UpsertGroupRequest>;

export const UpsertGroupResponse = Type.Object(
  { ok: Type.Literal(true), group: ContactGroup },
  { additionalProperties: false },
);
export type UpsertGroupResponse = Static<typeof UpsertGroupResponse>;

export const ListGroupsRequest = Type.Object(
  {},
  { additionalProperties: false, description: 'no fields: {}' },
);
export type ListGroupsRequest = Static<typeof ListGroupsRequest>;

export const ListGroupsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    groups: Type.Array(ContactGroup, { description: 'every group of the tenant, by slug' }),
  },
  { additionalProperties: false },
);
export type ListGroupsResponse = Static<typeof ListGroupsResponse>;

export const DeleteGroupRequest = Type.Object({ groupSlug: GroupSlug }, { additionalProperties: false });
export type DeleteGroupRequest = Static<typeof DeleteGroupRequest>;

export const GroupMembersRequest = Type.Object(
  {
    groupSlug: GroupSlug,
    contactIds: Type.Array(
      Type.String({ minLength: 1, maxLength: 320, description: 'a contact id (ct_…) or a contact email' }),
      { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'contact ids or emails, 1 to 1,000' },
    ),
  },
  { additionalProperties: false },
);
export type GroupMembersRequest = Static<typeof GroupMembersRequest>;

export const GroupMembersResponse = Type.Object(
  {
    ok: Type.Literal(true),
    updated: Type.Integer({
      minimum: 0,
      description:
        'memberships added (add) or removed (remove); contacts already in (or not in) the group are not counted',
    }),
  },
  { additionalProperties: false },
);
export type GroupMembersResponse = Static<typeof GroupMembersResponse>;

// ---- bulk sends: POST /v1/contacts/send, /send/dry-run, /send/get (DESIGN.md §7)

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

export const BulkSendResponse = Type.Object(
  {
    ok: Type.Literal(true),
    jobId: BulkJobId,
    queued: Type.Integer({ minimum: 0, description: 'messages queued' }),
    idempotent: Type.Boolean({
      description: 'extension: true when this repeats an earlier bulk send with the same Idempotency-Key',
    }),
  },
  { additionalProperties: false },
);
export type BulkSendResponse = Static<typeof BulkSendResponse>;

export const SKIP_REASONS = ['unsubscribed', 'complained', 'suppressed', 'duplicate', 'not_found'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

const SkipCounts = Type.Object(
  {
    unsubscribed: Type.Integer({ minimum: 0, description: 'notification templates only' }),
    complained: Type.Integer({ minimum: 0 }),
    suppressed: Type.Integer({ minimum: 0, description: 'in a hard-bounce cooldown or suppressed' }),
    duplicate: Type.Integer({ minimum: 0, description: 'named more than once' }),
    not_found: Type.Integer({ minimum: 0, description: 'no contact of the tenant by that id or email' }),
  },
  { additionalProperties: false, description: 'one reason per skipped contact' },
);

export const BulkSendPreviewResponse = Type.Object(
  {
    ok: Type.Literal(true),
    eligible: Type.Integer({ minimum: 0 }),
    skipped: SkipCounts,
  },
  { additionalProperties: false },
);
export type BulkSendPreviewResponse = Static<typeof BulkSendPreviewResponse>;

export const GetBulkSendRequest = Type.Object({ jobId: BulkJobId }, { additionalProperties: false });
export type GetBulkSendRequest = Static<typeof GetBulkSendRequest>;

export const BulkJob = Type.Object(
  {
    jobId: BulkJobId,
    status: Type.Union(
      [
        Type.Literal('running'),
        Type.Literal('completed'),
        Type.Literal('paused_bounce_rate'),
        Type.Literal('canceled'),
      ],
      {
        description:
          'running while messages wait; completed when none does; paused_bounce_rate when hard bounces passed 5% after 200 attempts (an operator resumes or cancels it)',
      },
    ),
    projectId: Type.String(),
    environmentId: Type.String(),
    templateId: Type.String(),
    templateVersion: Type.String(),
    target: Type.Object(
      {
        groupSlug: Type.Optional(GroupSlug),
        contactCount: Type.Integer({ minimum: 0, description: 'contacts named by id or email' }),
      },
      { additionalProperties: false },
    ),
    queued: Type.Integer({ minimum: 0, description: 'messages queued when the job was created' }),
    skipped: SkipCounts,
    progress: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'messages by current status (queued, sending, deferred, sent, delivered, bounced, …)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    pausedAt: NullableTimestamp,
    canceledAt: NullableTimestamp,
  },
  { additionalProperties: false },
);

export const GetBulkSendResponse = Type.Object(
  { ok: Type.Literal(true), job: BulkJob },
  { additionalProperties: false },
);
export type GetBulkSendResponse = Static<typeof GetBulkSendResponse>;

// ---- the operations

/** What every API-key route can answer before its own checks. */
export const API_KEY_ERRORS = [
  'invalid_request', // a malformed request (Host header, …)
  'missing_api_key',
  'invalid_api_key',
  'api_key_revoked',
  'tenant_not_found',
  'project_not_found',
  'environment_not_found',
  'rate_limited',
  'service_unavailable',
  'internal',
] as const satisfies readonly CoreErrorCode[];

/** What every route answers when the key's tenant trial, project or environment refuses access. */
export const ACCESS_ERRORS = ['trial_expired', 'project_inactive', 'environment_inactive'] as const;

/** What every POST with a JSON body can answer about the body as such. */
export const JSON_BODY_ERRORS = ['invalid_request', 'payload_too_large', 'unsupported_media_type'] as const;

/** What the contact operations answer; get adds contact_not_found (an upsert never does). */
const CONTACT_ERRORS = [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS] as const;

const CONTACT_EXAMPLE: Contact = {
  id: 'ct_01M81C1XJB7Y4KHB01G4B1P0M5',
  email: 'jane@example.com',
  name: 'Jane Doe',
  groupSlugs: ['beta-testers'],
  customFields: { company: 'Acme', seats: 12, trial: true },
  status: 'active',
  createdAt: '2026-11-22T10:15:30.123Z',
  updatedAt: '2026-11-22T10:15:30.123Z',
  lastEmailedAt: '2026-11-20T08:01:12.000Z',
  delivery: { sent: 3, bounced: 0, complained: 0 },
};

/**
 * What every contact group operation can answer. The seed gives every contacts endpoint 404
 * contact_not_found, so all five declare it; only add and remove name contacts.
 */
const GROUP_ERRORS = [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'contact_not_found'] as const;

/** What a bulk send and its dry run can answer (DESIGN.md §3's checks that apply, and §7). */
const BULK_SEND_ERRORS = [
  ...API_KEY_ERRORS,
  ...JSON_BODY_ERRORS,
  ...ACCESS_ERRORS,
  'template_not_found',
  'template_version_not_found',
  'invalid_template_data',
  'sending_domain_not_ready',
  'from_domain_not_allowed',
  'app_paused',
  'app_blocked',
  'group_not_found',
  'contact_not_found',
] as const;

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  /**
   * How the caller is authenticated: an API key (default); a Standard Webhooks signature with the
   * environment's intake secret; an Amazon SNS signature plus a registered topic.
   */
  auth?: 'apiKey' | 'webhookSignature' | 'snsSignature';
  /** Request media types when not only application/json (SNS posts text/plain). */
  contentTypes?: readonly string[];
  /** The SDK method, `group.method` on the client. */
  sdk: string;
  summary: string;
  body?: TSchema;
  headers?: TSchema;
  response?: TSchema;
  /** Every error code the operation can answer; a test fails on any other. */
  errors?: readonly CoreErrorCode[];
  /** An example request body and response, for the reference. */
  example?: { body?: unknown; response: unknown };
  /** The message of a 400 invalid_request for a body that fails its schema, when the seed words it. */
  invalidRequestMessage?: string;
  /**
   * What a body needs beyond each property's own schema (one of several properties, one that
   * another requires), as JSON Schema 2020-12 keywords merged into the body's schema in the OpenAPI
   * document, so a client generated from it builds only requests the service takes. The use-case
   * checks the same combinations with its own wording; test/openapi-client.test.ts keeps the two
   * equal (a body the document refuses is refused with 400, and one it takes is not).
   */
  bodyRules?: Readonly<Record<string, unknown>>;
}

/** Every operation of the core API, by operationId (= the use-case's name). */
export const operations = {
  getQuota: {
    method: 'GET',
    path: '/v1/quota',
    sdk: 'quota.get',
    summary: "The operational quota of the key's environment",
    response: QuotaResponse,
    errors: [...API_KEY_ERRORS, ...ACCESS_ERRORS],
    example: {
      response: {
        ok: true,
        quota: {
          tenantId: 'ten_01M81C1XJB1VHQ67YATMSMP7K4',
          projectId: 'prj_01M81C1XJBK8H34T187GBDP8V9',
          environmentId: 'env_01M81C1XJB2NNCEJ58HV846MWZ',
          planId: 'starter',
          accessStatus: 'active',
          sendingStatus: 'active',
          period: { id: '2026-11', startsAt: '2026-11-01T00:00:00.000Z', endsAt: '2026-12-01T00:00:00.000Z' },
          monthly: {
            limit: 10000,
            used: 1250,
            remaining: 8750,
            overageAllowed: false,
            overageEmails: 0,
            status: 'available',
          },
          environment: { usedThisMonth: 1250 },
        },
      },
    },
  },
  sendEmail: {
    method: 'POST',
    path: '/v1/send',
    sdk: 'emails.send',
    summary: 'Queue one templated email',
    body: SendRequest,
    headers: IdempotencyKeyHeader,
    response: SendResponse,
    errors: [
      ...API_KEY_ERRORS,
      ...JSON_BODY_ERRORS,
      ...ACCESS_ERRORS,
      'idempotency_key_reused',
      'template_not_found',
      'template_version_not_found',
      'invalid_template_data',
      'invalid_from_address',
      'invalid_from_name',
      'invalid_reply_to',
      'sending_domain_not_ready',
      'from_domain_not_allowed',
      'app_paused',
      'app_blocked',
      'recipient_complained',
      'recipient_unsubscribed',
      'recipient_suppressed',
      'monthly_quota_exceeded',
    ],
    example: {
      body: { templateId: 'login-code', to: 'jane@example.com', data: { code: '482913' } },
      response: {
        ok: true,
        status: 'accepted',
        messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        idempotent: false,
      },
    },
  },
  getRecipientStatus: {
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
          },
        ],
      },
    },
  },
  resubscribeRecipient: {
    method: 'POST',
    path: '/v1/recipients/resubscribe',
    sdk: 'recipients.resubscribe',
    summary: 'Clear a recipient’s notification unsubscribe after an explicit opt-in',
    body: ResubscribeRequest,
    response: OkResponse,
    errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
    invalidRequestMessage: 'Invalid resubscribe request: expected a valid email and scope app_notifications.',
    example: { body: { email: 'jane@example.com', scope: 'app_notifications' }, response: { ok: true } },
  },
  getMessage: {
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
  },
  ingestRelayEvent: {
    method: 'POST',
    path: '/v1/events/intake',
    sdk: 'events.intake',
    summary: 'A delivery, bounce or complaint event from your relay, Standard Webhooks-signed (extension)',
    auth: 'webhookSignature',
    body: RelayEventRequest,
    bodyRules: RELAY_EVENT_RULES,
    invalidRequestMessage:
      'Invalid relay event: expected environmentId, type delivered, bounced or complained, and messageId or messageIdHeader.',
    response: RelayEventResponse,
    errors: [...JSON_BODY_ERRORS, 'invalid_signature', 'rate_limited', 'service_unavailable', 'internal'],
    example: {
      body: {
        environmentId: 'env_01M81C1XJB7Y4KHB01G4B1P0M5',
        type: 'bounced',
        messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        recipient: 'jane@example.com',
        bounce: { type: 'permanent', status: '5.1.1', diagnostic: '550 5.1.1 User unknown' },
      },
      response: { ok: true, outcome: 'applied' },
    },
  },
  ingestSesEvent: {
    method: 'POST',
    path: '/v1/events/ses',
    sdk: 'events.ses',
    summary: 'Amazon SES bounce, complaint and delivery notifications through SNS (extension)',
    auth: 'snsSignature',
    contentTypes: ['text/plain', 'application/json'],
    body: SnsMessageRequest,
    response: SesEventResponse,
    errors: [
      ...JSON_BODY_ERRORS,
      'invalid_signature',
      'sns_topic_not_registered',
      'rate_limited',
      'service_unavailable',
      'internal',
    ],
    example: {
      body: {
        Type: 'Notification',
        MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:ses-feedback',
        Message: '{"notificationType":"Delivery","mail":{…},"delivery":{…}}',
        Timestamp: '2026-11-22T10:15:32.000Z',
        SignatureVersion: '2',
        Signature: 'EXAMPLEpH+…',
        SigningCertURL:
          'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
      },
      response: { ok: true, outcome: 'applied' },
    },
  },
  upsertContact: {
    method: 'POST',
    path: '/v1/contacts/upsert',
    sdk: 'contacts.upsert',
    summary: 'Create or update a contact of the tenant, by email',
    body: UpsertContactRequest,
    response: UpsertContactResponse,
    errors: CONTACT_ERRORS,
    example: {
      body: {
        email: 'jane@example.com',
        name: 'Jane Doe',
        groupSlugs: ['beta-testers'],
        customFields: { company: 'Acme', seats: 12, trial: true },
      },
      response: { ok: true, contact: CONTACT_EXAMPLE },
    },
  },
  upsertContacts: {
    method: 'POST',
    path: '/v1/contacts/upsert-many',
    sdk: 'contacts.upsertMany',
    summary: 'Create or update up to 1,000 contacts, all or none (extension)',
    body: UpsertContactsRequest,
    response: UpsertContactsResponse,
    errors: CONTACT_ERRORS,
    example: {
      body: {
        contacts: [
          { email: 'jane@example.com', name: 'Jane Doe', groupSlugs: ['beta-testers'] },
          { email: 'omar@example.com', customFields: { company: 'Initech' } },
        ],
      },
      response: {
        ok: true,
        created: 1,
        updated: 1,
        contactIds: ['ct_01M81C1XJB7Y4KHB01G4B1P0M5', 'ct_01M81C1XJC3Q0V8W1Z2Y7N4K6R'],
      },
    },
  },
  getContact: {
    method: 'POST',
    path: '/v1/contacts/get',
    sdk: 'contacts.get',
    summary: 'One contact, by id or email, with its status and delivery summary',
    body: GetContactRequest,
    response: GetContactResponse,
    errors: [...CONTACT_ERRORS, 'contact_not_found'],
    example: {
      body: { emailOrContactId: 'jane@example.com' },
      response: { ok: true, contact: CONTACT_EXAMPLE },
    },
  },
  listContacts: {
    method: 'POST',
    path: '/v1/contacts/list',
    sdk: 'contacts.list',
    summary: 'Contacts of the tenant, searched and filtered, a page at a time',
    body: ListContactsRequest,
    response: ListContactsResponse,
    errors: CONTACT_ERRORS,
    example: {
      body: {
        search: 'acme',
        filters: [
          { field: 'group', op: 'eq', value: 'beta-testers' },
          { field: 'status', op: 'in', value: ['active', 'unsubscribed'] },
        ],
        pageSize: 50,
      },
      response: {
        ok: true,
        contacts: [CONTACT_EXAMPLE],
        nextCursor: 'Y3RfMDFNODFDMVhKQjdZNEtIQjAxRzRCMVAwTTU',
      },
    },
  },
  upsertGroup: {
    method: 'POST',
    path: '/v1/contacts/groups/upsert',
    sdk: 'contacts.groups.upsert',
    summary: 'Create a group, or rename the group of this slug',
    body: UpsertGroupRequest,
    response: UpsertGroupResponse,
    errors: GROUP_ERRORS,
    example: {
      body: { name: 'Beta testers' },
      response: {
        ok: true,
        group: {
          slug: 'beta-testers',
          name: 'Beta testers',
          contactCount: 0,
          createdAt: '2026-11-22T10:15:30.123Z',
          updatedAt: '2026-11-22T10:15:30.123Z',
        },
      },
    },
  },
  listGroups: {
    method: 'POST',
    path: '/v1/contacts/groups/list',
    sdk: 'contacts.groups.list',
    summary: 'Every group of the tenant, by slug, with its contact count',
    body: ListGroupsRequest,
    response: ListGroupsResponse,
    errors: GROUP_ERRORS,
    example: {
      body: {},
      response: {
        ok: true,
        groups: [
          {
            slug: 'beta-testers',
            name: 'Beta testers',
            contactCount: 1834,
            createdAt: '2026-11-22T10:15:30.123Z',
            updatedAt: '2026-11-22T10:15:30.123Z',
          },
        ],
      },
    },
  },
  deleteGroup: {
    method: 'POST',
    path: '/v1/contacts/groups/delete',
    sdk: 'contacts.groups.delete',
    summary: 'Delete a group and its memberships, never its contacts',
    body: DeleteGroupRequest,
    response: OkResponse,
    errors: [...GROUP_ERRORS, 'group_not_found'],
    example: { body: { groupSlug: 'beta-testers' }, response: { ok: true } },
  },
  addContactsToGroup: {
    method: 'POST',
    path: '/v1/contacts/groups/add',
    sdk: 'contacts.groups.add',
    summary: 'Add contacts, by id or email, to a group (created when missing)',
    body: GroupMembersRequest,
    response: GroupMembersResponse,
    errors: GROUP_ERRORS,
    example: {
      body: { groupSlug: 'beta-testers', contactIds: ['ct_01M81C1XJB7Y4KHB01G4B1P0M5', 'jane@example.com'] },
      response: { ok: true, updated: 2 },
    },
  },
  removeContactsFromGroup: {
    method: 'POST',
    path: '/v1/contacts/groups/remove',
    sdk: 'contacts.groups.remove',
    summary: 'Remove contacts, by id or email, from a group (never deletes them)',
    body: GroupMembersRequest,
    response: GroupMembersResponse,
    errors: [...GROUP_ERRORS, 'group_not_found'],
    example: {
      body: { groupSlug: 'beta-testers', contactIds: ['jane@example.com'] },
      response: { ok: true, updated: 1 },
    },
  },
  sendToContacts: {
    method: 'POST',
    path: '/v1/contacts/send',
    sdk: 'contacts.send',
    summary: 'Queue a template send to contacts or a group',
    body: BulkSendRequest,
    bodyRules: BULK_SEND_RULES,
    headers: IdempotencyKeyHeader,
    response: BulkSendResponse,
    errors: [...BULK_SEND_ERRORS, 'idempotency_key_reused', 'monthly_quota_exceeded'],
    example: {
      body: {
        projectId: 'prj_01M81C1XJBK8H34T187GBDP8V9',
        environmentId: 'env_01M81C1XJB2NNCEJ58HV846MWZ',
        templateId: 'reminder',
        templateData: {
          subject: 'Your workshop starts tomorrow, {{contact.name}}',
          heading: 'See you tomorrow',
          intro: 'Your seat for {{contact.customFields.company}} is booked.',
        },
        groupSlug: 'beta-testers',
      },
      response: { ok: true, jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5', queued: 1834, idempotent: false },
    },
  },
  previewSendToContacts: {
    method: 'POST',
    path: '/v1/contacts/send/dry-run',
    sdk: 'contacts.sendDryRun',
    summary: 'Count who a contacts send would reach, without queueing',
    body: BulkSendRequest,
    bodyRules: BULK_SEND_RULES,
    response: BulkSendPreviewResponse,
    errors: BULK_SEND_ERRORS,
    example: {
      body: {
        templateId: 'account-locked',
        to: ['jane@example.com', 'ct_01M81C1XJB7Y4KHB01G4B1P0M5'],
        data: {},
      },
      response: {
        ok: true,
        eligible: 1,
        skipped: { unsubscribed: 0, complained: 0, suppressed: 0, duplicate: 0, not_found: 1 },
      },
    },
  },
  getBulkSend: {
    method: 'POST',
    path: '/v1/contacts/send/get',
    sdk: 'contacts.getSend',
    summary: 'A bulk send’s progress by message status (extension)',
    body: GetBulkSendRequest,
    response: GetBulkSendResponse,
    errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'job_not_found'],
    example: {
      body: { jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5' },
      response: {
        ok: true,
        job: {
          jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5',
          status: 'running',
          projectId: 'prj_01M81C1XJBK8H34T187GBDP8V9',
          environmentId: 'env_01M81C1XJB2NNCEJ58HV846MWZ',
          templateId: 'reminder',
          templateVersion: 'v1',
          target: { groupSlug: 'beta-testers', contactCount: 0 },
          queued: 1834,
          skipped: { unsubscribed: 12, complained: 1, suppressed: 3, duplicate: 0, not_found: 0 },
          progress: { queued: 1200, sending: 16, sent: 610, bounced: 8 },
          createdAt: '2026-11-22T10:15:30.123Z',
          updatedAt: '2026-11-22T10:16:02.511Z',
          pausedAt: null,
          canceledAt: null,
        },
      },
    },
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;
