// POST /v1/events/intake: a delivery, bounce or complaint event from the relay, signed (extension).
import { type Static, Type } from '@sinclair/typebox';
import { JSON_BODY_ERRORS } from './shared/error-sets.js';
import { ENVIRONMENT_ID } from './shared/ids.js';
import type { Operation } from './shared/operation.js';

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

export const ingestRelayEvent = {
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
} as const satisfies Operation;
