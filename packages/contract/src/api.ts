// The core API's contract: every operation of the seed (and its extensions) with one name used in
// three places — the route (`POST /v1/send`), the use-case (`sendEmail`), the SDK method
// (`client.emails.send()`) — and, for the operations built so far, the request and response
// schemas and the error codes each can answer. The server registers its routes from this table,
// @fastify/swagger turns it into the OpenAPI document, and the client is typed by it.
// Browser-safe (TypeBox only).
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { CoreErrorCode } from './errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from './http.js';

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
    code: Type.String({ description: 'hard_bounce, rejected, temporary_failure, expired, …' }),
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
  /** false: named here (the name is taken) but not built yet; no route, no OpenAPI entry. */
  isBuilt: boolean;
  body?: TSchema;
  headers?: TSchema;
  response?: TSchema;
  /** Every error code the operation can answer; a test fails on any other. */
  errors?: readonly CoreErrorCode[];
  /** An example request body and response, for the reference. */
  example?: { body?: unknown; response: unknown };
  /** The message of a 400 invalid_request for a body that fails its schema, when the seed words it. */
  invalidRequestMessage?: string;
}

const planned = (method: 'POST', path: string, sdk: string, summary: string): Operation => ({
  method,
  path,
  sdk,
  summary,
  isBuilt: false,
});

/** Every operation of the core API, by operationId (= the use-case's name). */
export const operations = {
  getQuota: {
    method: 'GET',
    path: '/v1/quota',
    sdk: 'quota.get',
    summary: "The operational quota of the key's environment",
    isBuilt: true,
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
    isBuilt: true,
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
    isBuilt: true,
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
    isBuilt: true,
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
    isBuilt: true,
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
    isBuilt: true,
    auth: 'webhookSignature',
    body: RelayEventRequest,
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
    isBuilt: true,
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
  upsertContact: planned('POST', '/v1/contacts/upsert', 'contacts.upsert', 'Create or update a contact'),
  upsertContacts: planned(
    'POST',
    '/v1/contacts/upsert-many',
    'contacts.upsertMany',
    'Create or update up to 1,000 contacts',
  ),
  getContact: planned('POST', '/v1/contacts/get', 'contacts.get', 'One contact by id or email'),
  listContacts: planned('POST', '/v1/contacts/list', 'contacts.list', 'Contacts, searched and filtered'),
  upsertGroup: planned(
    'POST',
    '/v1/contacts/groups/upsert',
    'contacts.groups.upsert',
    'Create or rename a group',
  ),
  listGroups: planned(
    'POST',
    '/v1/contacts/groups/list',
    'contacts.groups.list',
    'Every group of the tenant',
  ),
  deleteGroup: planned(
    'POST',
    '/v1/contacts/groups/delete',
    'contacts.groups.delete',
    'Delete a group (never its contacts)',
  ),
  addContactsToGroup: planned(
    'POST',
    '/v1/contacts/groups/add',
    'contacts.groups.add',
    'Add contacts to a group',
  ),
  removeContactsFromGroup: planned(
    'POST',
    '/v1/contacts/groups/remove',
    'contacts.groups.remove',
    'Remove contacts from a group',
  ),
  sendToContacts: planned(
    'POST',
    '/v1/contacts/send',
    'contacts.send',
    'Queue a template send to contacts or a group',
  ),
  previewSendToContacts: planned(
    'POST',
    '/v1/contacts/send/dry-run',
    'contacts.sendDryRun',
    'Count who a contacts send would reach, without queueing',
  ),
  getBulkSend: planned('POST', '/v1/contacts/send/get', 'contacts.getSend', 'A bulk send’s progress'),
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;
