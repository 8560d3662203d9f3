// The core API client: one method per built /v1 operation, named as in ARCHITECTURE.md
// (operationId sendEmail → POST /v1/send → client.emails.send()); the signed relay intakes are
// events.ts.

import { type DomainsApi, domainsApi } from './domains.js';
import { MailsvcEvents } from './events.js';
import {
  type AddContactsToGroupBody,
  type AddContactsToGroupResult,
  type AddSuppressionBody,
  type AddSuppressionResult,
  type CancelMessageBody,
  type CancelMessageResult,
  type CreateKeyBody,
  type CreateKeyResult,
  type DeleteGroupBody,
  type DeleteGroupResult,
  type GetBulkSendBody,
  type GetBulkSendResult,
  type GetContactBody,
  type GetContactResult,
  type GetDailyStatsBody,
  type GetDailyStatsResult,
  type GetMessageBody,
  type GetMessageResult,
  type GetQuotaResult,
  type GetRecipientStatusBody,
  type GetRecipientStatusResult,
  type ListAuditEventsBody,
  type ListAuditEventsResult,
  type ListContactsBody,
  type ListContactsResult,
  type ListGroupsResult,
  type ListKeysResult,
  type ListMessagesBody,
  type ListMessagesResult,
  type ListSuppressionsBody,
  type ListSuppressionsResult,
  type ListTemplatesBody,
  type ListTemplatesResult,
  type OperationId,
  operations,
  type PreviewSendToContactsBody,
  type PreviewSendToContactsResult,
  type RemoveContactsFromGroupBody,
  type RemoveContactsFromGroupResult,
  type RemoveSuppressionBody,
  type RemoveSuppressionResult,
  type RescheduleMessageBody,
  type RescheduleMessageResult,
  type ResubscribeRecipientBody,
  type ResubscribeRecipientResult,
  type RevokeKeyBody,
  type RevokeKeyResult,
  type SendBatchResult,
  type SendEmailBody,
  type SendEmailResult,
  type SendToContactsBody,
  type SendToContactsResult,
  type UpsertContactBody,
  type UpsertContactResult,
  type UpsertContactsBody,
  type UpsertContactsResult,
  type UpsertGroupBody,
  type UpsertGroupResult,
} from './generated/core.js';
import { pages } from './pages.js';
import type { TemplateData, TemplateId, TemplateLatestVersion, VersionedData } from './templates.js';
import { type CallOptions, type ClientOptions, newIdempotencyKey, Transport } from './transport.js';
import { type WebhooksApi, webhooksApi } from './webhooks.js';

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
    /**
     * Up to 100 sends at once (`POST /v1/send/batch`), each typed as `send`'s body and checked on
     * its own: `results[i]` is `{status: 'accepted', messageId}` or `{status: 'refused', error}`
     * for `items[i]`. An Idempotency-Key is generated when you give none, so a retry replays the
     * whole answer and sends nothing twice.
     */
    sendBatch(items: readonly SendEmailInput[], options?: SendOptions): Promise<SendBatchResult>;
  };

  readonly quota: {
    /** The operational quota of the key's environment (`GET /v1/quota`). */
    get(options?: CallOptions): Promise<GetQuotaResult>;
  };
  readonly templates: {
    /**
     * The catalogue's templates: id, group, category, description, published versions and the
     * latest version's example data (`POST /v1/templates/list`), optionally of one category.
     */
    list(body?: ListTemplatesBody, options?: CallOptions): Promise<ListTemplatesResult>;
  };
  readonly stats: {
    /**
     * The environment's mail per UTC day (accepted, delivered, bounced, complained, failed,
     * unsubscribed) for `days` days ending today (default 30), with the window's bounce and
     * complaint rates beside the thresholds providers act at (`POST /v1/stats/daily`).
     */
    daily(body?: GetDailyStatsBody, options?: CallOptions): Promise<GetDailyStatsResult>;
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
    /**
     * A page of the environment's messages, newest first, filtered by status, template,
     * recipient, time, metadata pairs or bulk send (`POST /v1/messages/list`); pass `nextCursor`
     * back as `cursor`, with the same filters, until it is null (a cursor lasts 24 hours).
     * `pageSize` defaults to 50; above 100 it is read as 100.
     */
    list(body?: ListMessagesBody, options?: CallOptions): Promise<ListMessagesResult>;
    /**
     * Every message the filters match, newest first, fetched a page at a time as you iterate:
     * `for await (const m of client.messages.listAll({ metadata: { userId: 'u_1' } })) …`.
     */
    listAll(
      body?: Omit<ListMessagesBody, 'cursor'>,
      options?: CallOptions,
    ): AsyncIterableIterator<ListMessagesResult['messages'][number]>;
    /**
     * Cancels a `scheduled` or `queued` message before a worker takes it (`POST /v1/messages/cancel`);
     * 409 `message_not_cancelable` (naming its status) once it is being sent or has ended. A
     * canceled message still counts in the quota.
     */
    cancel(body: CancelMessageBody, options?: CallOptions): Promise<CancelMessageResult>;
    /**
     * Moves a `scheduled` message to another time (`POST /v1/messages/reschedule`), within 30 days
     * of its acceptance (a security template: at most 59 minutes); 409
     * `message_not_scheduled` once it fell due, went or was canceled.
     */
    reschedule(body: RescheduleMessageBody, options?: CallOptions): Promise<RescheduleMessageResult>;
  };

  /** The environment's API keys (`POST /v1/keys/…`); a full key only. */
  readonly keys: {
    /**
     * A new key of this environment (`POST /v1/keys/create`): `scope: 'send'` for a key that may
     * only send (and read the quota), optionally `templateCategories: ['security']`; `apiKey` in
     * the answer is the whole key, shown this once.
     */
    create(body: CreateKeyBody, options?: CallOptions): Promise<CreateKeyResult>;
    /** Every key of the environment with its scope, name, created and last used (`POST /v1/keys/list`). */
    list(options?: CallOptions): Promise<ListKeysResult>;
    /** Revokes a key of the environment (`POST /v1/keys/revoke`); every replica refuses it within 5 s. */
    revoke(body: RevokeKeyBody, options?: CallOptions): Promise<RevokeKeyResult>;
  };

  /** The environment's audit events (`POST /v1/audit/list`); a full key only. */
  readonly audit: {
    /** A page of the environment's audit events, newest first, by action and time. */
    list(body?: ListAuditEventsBody, options?: CallOptions): Promise<ListAuditEventsResult>;
    /** Every audit event the filters match, newest first, a page fetched as you iterate. */
    listAll(
      body?: Omit<ListAuditEventsBody, 'cursor'>,
      options?: CallOptions,
    ): AsyncIterableIterator<ListAuditEventsResult['events'][number]>;
  };

  /** The relay event intakes (`POST /v1/events/…`); also usable alone, without an API key: MailsvcEvents. */
  /** Who the environment does not mail and why (`POST /v1/suppressions/…`); a full key only. */
  readonly suppressions: {
    /**
     * A page of entries, newest first, one per address and reason (`hard_bounce`, `complaint`,
     * `unsubscribed`, `manual`), filtered by reason and time; pass `nextCursor` back as `cursor`.
     */
    list(body?: ListSuppressionsBody, options?: CallOptions): Promise<ListSuppressionsResult>;
    /** Every entry the filters match, a page at a time as you iterate. */
    listAll(
      body?: Omit<ListSuppressionsBody, 'cursor'>,
      options?: CallOptions,
    ): AsyncIterableIterator<ListSuppressionsResult['suppressions'][number]>;
    /** Stops all mail to an address (`manual`), optionally `until` a time, with a `note`. */
    add(body: AddSuppressionBody, options?: CallOptions): Promise<AddSuppressionResult>;
    /**
     * Lifts a `manual` or `hard_bounce` entry (both without `reason`); a complaint or an unsubscribe
     * answers 403 `suppression_not_removable`.
     */
    remove(body: RemoveSuppressionBody, options?: CallOptions): Promise<RemoveSuppressionResult>;
  };

  readonly events: MailsvcEvents;

  /** The environment's webhook endpoints (`POST /v1/webhooks/…`); a full key only. */
  readonly webhooks: WebhooksApi;
  /** The sending domains of the environment, its project and its tenant (`POST /v1/domains/…`); a full key only. */
  readonly domains: DomainsApi;

  /** The tenant's contacts (any environment's key of the tenant sees the same ones). */
  readonly contacts: {
    /**
     * Creates or updates the contact of this email (`POST /v1/contacts/upsert`). `name`: null
     * clears it; `groupSlugs`: the exact set of groups (missing ones created); `customFields`:
     * merged key by key, null deleting a key, at most 50 keys in all. Absent fields stay as they are.
     */
    upsert(body: UpsertContactBody, options?: CallOptions): Promise<UpsertContactResult>;
    /**
     * Up to 1,000 upserts in one call, all or nothing (`POST /v1/contacts/upsert-many`): an
     * `invalid_request` names every problem by index (`/contacts/3/email`) and nothing is written.
     * `contactIds` are in the order of `contacts`.
     */
    upsertMany(body: UpsertContactsBody, options?: CallOptions): Promise<UpsertContactsResult>;
    /**
     * One contact by `ct_…` id or email, with its status and delivery summary in the key's
     * environment (`POST /v1/contacts/get`); `contact_not_found` when the tenant has none.
     */
    get(body: GetContactBody, options?: CallOptions): Promise<GetContactResult>;
    /**
     * A page of the tenant's contacts, oldest first, searched and filtered
     * (`POST /v1/contacts/list`); pass `nextCursor` back as `cursor` until it is null. `pageSize`
     * defaults to 50; above 200 it is read as 200.
     */
    list(body?: ListContactsBody, options?: CallOptions): Promise<ListContactsResult>;
    readonly groups: {
      /**
       * Creates a group, or renames the group of `slug` (`POST /v1/contacts/groups/upsert`).
       * Without `slug` it is derived from `name` (`"Beta Testers"` → `beta-testers`), so the same
       * name again is the same group.
       */
      upsert(body: UpsertGroupBody, options?: CallOptions): Promise<UpsertGroupResult>;
      /** Every group of the tenant, by slug, with its contact count (`POST /v1/contacts/groups/list`). */
      list(options?: CallOptions): Promise<ListGroupsResult>;
      /** Deletes a group and its memberships, never its contacts (`POST /v1/contacts/groups/delete`). */
      delete(body: DeleteGroupBody, options?: CallOptions): Promise<DeleteGroupResult>;
      /**
       * Adds contacts, by id or email, to a group, created when missing (`POST
       * /v1/contacts/groups/add`). All or nothing: an unknown contact is `contact_not_found`.
       * `updated`: memberships added.
       */
      add(body: AddContactsToGroupBody, options?: CallOptions): Promise<AddContactsToGroupResult>;
      /**
       * Removes contacts, by id or email, from a group (`POST /v1/contacts/groups/remove`); the
       * contacts stay. `updated`: memberships removed.
       */
      remove(
        body: RemoveContactsFromGroupBody,
        options?: CallOptions,
      ): Promise<RemoveContactsFromGroupResult>;
    };
    /**
     * Queues one template to contacts named by id or email and/or a group
     * (`POST /v1/contacts/send`); resolves once every message is queued. Skipped contacts (not
     * found, duplicate, complained, unsubscribed, suppressed) are counted by the dry run. An
     * Idempotency-Key is generated when you give none, so a retry never queues the job twice.
     */
    send(body: SendToContactsBody, options?: SendOptions): Promise<SendToContactsResult>;
    /** Who `send` would reach, counted, without queueing (`POST /v1/contacts/send/dry-run`). */
    sendDryRun(body: PreviewSendToContactsBody, options?: CallOptions): Promise<PreviewSendToContactsResult>;
    /** A bulk send's status and its messages by status (`POST /v1/contacts/send/get`). */
    getSend(body: GetBulkSendBody, options?: CallOptions): Promise<GetBulkSendResult>;
  };

  constructor(options: MailsvcOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.length === 0)
      throw new TypeError('apiKey is required: an API key msk_… from mailsvc admin keys create');
    this.apiKey = options.apiKey;
    this.transport = new Transport(options);
    this.emails = {
      send: (body, opts = {}) =>
        this.call('sendEmail', body, opts, opts.idempotencyKey ?? newIdempotencyKey()),
      sendBatch: (items, opts = {}) =>
        this.call('sendBatch', { items }, opts, opts.idempotencyKey ?? newIdempotencyKey()),
    };
    this.quota = { get: (opts = {}) => this.call('getQuota', undefined, opts) };
    this.templates = { list: (body = {}, opts = {}) => this.call('listTemplates', body, opts) };
    this.stats = { daily: (body = {}, opts = {}) => this.call('getDailyStats', body, opts) };
    this.recipients = {
      status: (body, opts = {}) => this.call('getRecipientStatus', body, opts),
      resubscribe: (body, opts = {}) => this.call('resubscribeRecipient', body, opts),
    };
    this.messages = {
      get: (body, opts = {}) => this.call('getMessage', body, opts),
      list: (body = {}, opts = {}) => this.call('listMessages', body, opts),
      listAll: (body = {}, opts = {}) =>
        pages(
          (cursor) => this.call<ListMessagesResult>('listMessages', { ...body, cursor }, opts),
          (page) => page.messages,
        ),
      cancel: (body, opts = {}) => this.call('cancelMessage', body, opts),
      reschedule: (body, opts = {}) => this.call('rescheduleMessage', body, opts),
    };
    this.keys = {
      create: (body, opts = {}) => this.call('createKey', body, opts),
      list: (opts = {}) => this.call('listKeys', {}, opts),
      revoke: (body, opts = {}) => this.call('revokeKey', body, opts),
    };
    this.audit = {
      list: (body = {}, opts = {}) => this.call('listAuditEvents', body, opts),
      listAll: (body = {}, opts = {}) =>
        pages(
          (cursor) => this.call<ListAuditEventsResult>('listAuditEvents', { ...body, cursor }, opts),
          (page) => page.events,
        ),
    };
    this.suppressions = {
      list: (body = {}, opts = {}) => this.call('listSuppressions', body, opts),
      listAll: (body = {}, opts = {}) =>
        pages(
          (cursor) => this.call<ListSuppressionsResult>('listSuppressions', { ...body, cursor }, opts),
          (page) => page.suppressions,
        ),
      add: (body, opts = {}) => this.call('addSuppression', body, opts),
      remove: (body, opts = {}) => this.call('removeSuppression', body, opts),
    };
    this.events = new MailsvcEvents(options, this.transport);
    this.webhooks = webhooksApi((id, body, opts) => this.call(id, body, opts));
    this.domains = domainsApi((id, body, opts) => this.call(id, body, opts));
    this.contacts = {
      upsert: (body, opts = {}) => this.call('upsertContact', body, opts),
      upsertMany: (body, opts = {}) => this.call('upsertContacts', body, opts),
      get: (body, opts = {}) => this.call('getContact', body, opts),
      list: (body = {}, opts = {}) => this.call('listContacts', body, opts),
      groups: {
        upsert: (body, opts = {}) => this.call('upsertGroup', body, opts),
        list: (opts = {}) => this.call('listGroups', {}, opts),
        delete: (body, opts = {}) => this.call('deleteGroup', body, opts),
        add: (body, opts = {}) => this.call('addContactsToGroup', body, opts),
        remove: (body, opts = {}) => this.call('removeContactsFromGroup', body, opts),
      },
      send: (body, opts = {}) =>
        this.call('sendToContacts', body, opts, opts.idempotencyKey ?? newIdempotencyKey()),
      sendDryRun: (body, opts = {}) => this.call('previewSendToContacts', body, opts),
      getSend: (body, opts = {}) => this.call('getBulkSend', body, opts),
    };
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
