// The core API client: one method per built /v1 operation, named as in ARCHITECTURE.md
// (operationId sendEmail → POST /v1/send → client.emails.send()).
import {
  type GetQuotaResult,
  type OperationId,
  operations,
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
