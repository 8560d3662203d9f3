// Standard Webhooks signing (DESIGN.md §11): `webhook-id` is the event's id (the same on every
// retry and replay), `webhook-timestamp` the attempt's time in seconds, `webhook-signature` one
// `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret, space-separated: after a rotation the
// previous secret signs too until its grace ends. Signed with the `standardwebhooks` package, the
// reference implementation receivers verify with.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export interface SigningSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
}

/** A new secret: whsec_ and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three headers of one attempt. */
export function signWebhook(
  eventId: string,
  at: Date,
  body: string,
  secrets: SigningSecrets,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const keys = [secrets.secret];
  if (secrets.previousSecret && secrets.previousSecretUntil && secrets.previousSecretUntil > at)
    keys.push(secrets.previousSecret);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': keys.map((k) => new Webhook(k).sign(eventId, at, body)).join(' '),
  };
}
