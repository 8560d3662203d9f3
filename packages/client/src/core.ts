// The core API client: one method per built /v1 operation, named as in ARCHITECTURE.md
// (operationId sendEmail → POST /v1/send → client.emails.send()).
import {
  type GetMessageBody,
  type GetMessageResult,
  type GetQuotaResult,
  type GetRecipientStatusBody,
  type GetRecipientStatusResult,
  type OperationId,
  operations,
  type ResubscribeRecipientBody,
  type ResubscribeRecipientResult,
  type SendEmailBody,
  type SendEmailResult,
} from './generated/core.js';
import type { TemplateData, TemplateId, TemplateLatestVersion, VersionedData } from './templates.js';
import { type CallOptions, type ClientOptions, newIdempotencyKey, Transport } from './transport.js';

/**
 * The body of `emails.send`: the contract's SendEmailBody with `data` typed by `templateId` and
 * `templateVersion` (the latest published version when none is named).
 */
export type SendEmailInput = {
  [T in TemplateId]: { templateId: T } & VersionedData<
    T,
    TemplateLatestVersion[T] & keyof TemplateData[T] & string
  > &
    Omit<SendEmailBody, 'templateId' | 'templateVersion' | 'data'>;
}[TemplateId];

export interface MailsvcOptions extends ClientOptions {
  /** An API key, `msk_<keyId>_<secret>`. Keep it on a server: it sends mail as your environment. */
  apiKey: string;
}

export interface SendOptions extends CallOptions {
  /**
   * The send's Idempotency-Key (1–120 printable ASCII characters): the same key with the same
   * body within 24 h answers the first message instead of sending another. When absent the
   * client makes one, so its own retries never send twice; pass yours to make your retries
   * (a job run again, say) safe too.
   */
  idempotencyKey?: string;
}

export class Mailsvc {
  private readonly transport: Transport;
  private readonly apiKey: string;

  readonly emails: {
    /** Queue one templated email (`POST /v1/send`). Resolves when accepted, not when delivered. */
    send(body: SendEmailInput, options?: SendOptions): Promise<SendEmailResult>;
  };

  readonly quota: {
    /** The operational quota of the key's environment (`GET /v1/quota`). */
    get(options?: CallOptions): Promise<GetQuotaResult>;
  };

  readonly recipients: {
    /**
     * A recipient's state in the key's environment and its recent messages, metadata only
     * (`POST /v1/recipients/status`; `limit` default 10, clamped to 1–50). Check
     * `recipient.canSendNotifications` before showing notification settings.
     */
    status(body: GetRecipientStatusBody, options?: CallOptions): Promise<GetRecipientStatusResult>;
    /**
     * Clears a notification unsubscribe after the recipient's explicit opt-in — never call it
     * automatically (`POST /v1/recipients/resubscribe`). A complaint, cooldown or suppression stays.
     */
    resubscribe(body: ResubscribeRecipientBody, options?: CallOptions): Promise<ResubscribeRecipientResult>;
  };

  readonly messages: {
    /** One message's metadata and event timeline, never its content (`POST /v1/messages/get`). */
    get(body: GetMessageBody, options?: CallOptions): Promise<GetMessageResult>;
  };

  constructor(options: MailsvcOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.length === 0)
      throw new TypeError('apiKey is required: an API key msk_… from mailsvc admin keys create');
    this.apiKey = options.apiKey;
    this.transport = new Transport(options);
    this.emails = {
      send: (body, opts = {}) =>
        this.call('sendEmail', body, opts, opts.idempotencyKey ?? newIdempotencyKey()),
    };
    this.quota = { get: (opts = {}) => this.call('getQuota', undefined, opts) };
    this.recipients = {
      status: (body, opts = {}) => this.call('getRecipientStatus', body, opts),
      resubscribe: (body, opts = {}) => this.call('resubscribeRecipient', body, opts),
    };
    this.messages = { get: (body, opts = {}) => this.call('getMessage', body, opts) };
  }

  private call<T>(id: OperationId, body: unknown, opts: CallOptions, idempotencyKey?: string): Promise<T> {
    const op = operations[id];
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}` };
    if (op.idempotencyKey && idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return this.transport.request<T>({
      method: op.method,
      path: op.path,
      body,
      headers: () => headers,
      signal: opts.signal,
      idempotencyKey: headers['idempotency-key'],
    });
  }
}
