// POST /v1/events/ses: Amazon SES notifications through SNS (extension).
import { type Static, Type } from '@sinclair/typebox';
import { RELAY_EVENT_OUTCOMES } from './ingest-relay-event.js';
import { JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

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

export const ingestSesEvent = {
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
} as const satisfies Operation;
