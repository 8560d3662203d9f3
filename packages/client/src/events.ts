// The relay event intakes of the client (POST /v1/events/intake and /v1/events/ses), authenticated
// by signatures rather than an API key: `new MailsvcEvents({ baseUrl })` alone, or
// `new Mailsvc(…).events`.
import {
  type IngestRelayEventBody,
  type IngestRelayEventResult,
  type IngestSesEventBody,
  type IngestSesEventResult,
  operations,
} from './generated/core.js';
import { type CallOptions, type ClientOptions, Transport } from './transport.js';

export interface RelayEventOptions extends CallOptions {
  /** The environment's intake secret, `whsec_…` (`mailsvc admin events create-secret`). */
  secret: string;
  /**
   * The event's webhook-id: the same id is applied once, so give your relay's event id to make
   * your own retries safe. Default: a new id per call (the client's own retries reuse it).
   */
  webhookId?: string;
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/**
 * A Standard Webhooks signature, `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, with WebCrypto
 * (the client has no dependencies; the server verifies with the standardwebhooks library, and
 * the client's tests check the two agree).
 */
async function signRelayEvent(
  secret: string,
  id: string,
  timestamp: number,
  payload: string,
): Promise<string> {
  const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign(
    'HMAC',
    key,
    new TextEncoder().encode(`${id}.${timestamp}.${payload}`),
  );
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/**
 * The relay event intakes, for a bridge between your relay and mailsvc. They are authenticated by
 * signatures, not an API key: a bridge that holds only the intake secret uses this class alone
 * (`new MailsvcEvents({ baseUrl })`); `new Mailsvc(…).events` is the same.
 */
export class MailsvcEvents {
  private readonly transport: Transport;

  constructor(options: ClientOptions, transport?: Transport) {
    this.transport = transport ?? new Transport(options);
  }

  /**
   * Reports a relay's delivery, bounce or complaint event (`POST /v1/events/intake`), signed per
   * Standard Webhooks with the environment's intake secret. No API key is sent.
   */
  intake(body: IngestRelayEventBody, options: RelayEventOptions): Promise<IngestRelayEventResult> {
    const secret = options?.secret;
    if (typeof secret !== 'string' || !secret.startsWith('whsec_'))
      throw new TypeError(
        'secret is required: the intake secret whsec_… from mailsvc admin events create-secret',
      );
    const id = options.webhookId ?? `evt_${crypto.randomUUID()}`;
    const payload = JSON.stringify(body);
    const op = operations.ingestRelayEvent;
    return this.transport.request({
      method: op.method,
      path: op.path,
      body,
      // Signed again for every attempt: a retry carries a fresh timestamp and the same id.
      headers: async () => {
        const timestamp = Math.floor(Date.now() / 1000);
        return {
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': await signRelayEvent(secret, id, timestamp, payload),
        };
      },
      signal: options.signal,
    });
  }

  /**
   * Forwards an Amazon SNS message as SNS posted it (`POST /v1/events/ses`), from a function
   * subscribed to the topic when SNS cannot reach mailsvc itself. SNS's signature authenticates it.
   */
  ses(body: IngestSesEventBody, options: CallOptions = {}): Promise<IngestSesEventResult> {
    const op = operations.ingestSesEvent;
    return this.transport.request({ method: op.method, path: op.path, body, signal: options.signal });
  }
}
