// The webhook endpoints of an environment (`POST /v1/webhooks/…`, a full key only) as the client's
// `webhooks` group; verifying the events they receive is verifyWebhook() (verify-webhook.ts).
import type {
  CreateWebhookBody,
  CreateWebhookResult,
  DeleteWebhookBody,
  DeleteWebhookResult,
  GetWebhookBody,
  GetWebhookResult,
  ListWebhookDeliveriesBody,
  ListWebhookDeliveriesResult,
  ListWebhooksResult,
  OperationId,
  ReplayWebhookDeliveriesBody,
  ReplayWebhookDeliveriesResult,
  RotateWebhookSecretBody,
  RotateWebhookSecretResult,
  TestWebhookBody,
  TestWebhookResult,
  UpdateWebhookBody,
  UpdateWebhookResult,
} from './generated/core.js';
import { pages } from './pages.js';
import type { CallOptions } from './transport.js';

export interface WebhooksApi {
  /** A new endpoint; the answer's `secret` (whsec_…) is shown this once: keep it to verify events. */
  create(body: CreateWebhookBody, options?: CallOptions): Promise<CreateWebhookResult>;
  /** The environment's endpoints (at most 20), oldest first. */
  list(options?: CallOptions): Promise<ListWebhooksResult>;
  get(body: GetWebhookBody, options?: CallOptions): Promise<GetWebhookResult>;
  /** Changes the URL, the event types, the description or `enabled` (enabling resumes a disabled one). */
  update(body: UpdateWebhookBody, options?: CallOptions): Promise<UpdateWebhookResult>;
  delete(body: DeleteWebhookBody, options?: CallOptions): Promise<DeleteWebhookResult>;
  /** A new secret; the old one keeps signing beside it for 24 hours. */
  rotateSecret(body: RotateWebhookSecretBody, options?: CallOptions): Promise<RotateWebhookSecretResult>;
  /** Queues a `webhook.test` event to the endpoint; its attempts show in `deliveries.list`. */
  test(body: TestWebhookBody, options?: CallOptions): Promise<TestWebhookResult>;
  readonly deliveries: {
    /** A page of attempts, newest first; pass `nextCursor` back as `cursor`. */
    list(body?: ListWebhookDeliveriesBody, options?: CallOptions): Promise<ListWebhookDeliveriesResult>;
    /** Every attempt the filters match, a page at a time as you iterate. */
    listAll(
      body?: Omit<ListWebhookDeliveriesBody, 'cursor'>,
      options?: CallOptions,
    ): AsyncIterableIterator<ListWebhookDeliveriesResult['attempts'][number]>;
    /** Sends one event again, or every failed event of an endpoint in a time range (same webhook-id). */
    replay(body: ReplayWebhookDeliveriesBody, options?: CallOptions): Promise<ReplayWebhookDeliveriesResult>;
  };
}

type Call = <T>(id: OperationId, body: unknown, options: CallOptions) => Promise<T>;

export function webhooksApi(call: Call): WebhooksApi {
  return {
    create: (body, opts = {}) => call('createWebhook', body, opts),
    list: (opts = {}) => call('listWebhooks', {}, opts),
    get: (body, opts = {}) => call('getWebhook', body, opts),
    update: (body, opts = {}) => call('updateWebhook', body, opts),
    delete: (body, opts = {}) => call('deleteWebhook', body, opts),
    rotateSecret: (body, opts = {}) => call('rotateWebhookSecret', body, opts),
    test: (body, opts = {}) => call('testWebhook', body, opts),
    deliveries: {
      list: (body = {}, opts = {}) => call('listWebhookDeliveries', body, opts),
      listAll: (body = {}, opts = {}) =>
        pages(
          (cursor) => call<ListWebhookDeliveriesResult>('listWebhookDeliveries', { ...body, cursor }, opts),
          (page) => page.attempts,
        ),
      replay: (body, opts = {}) => call('replayWebhookDeliveries', body, opts),
    },
  };
}
