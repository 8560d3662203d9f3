// The typed SDK, in one place. The server's esbuild maps '@mailsvc/client' to the same source file;
// importing it by relative path also lets `tsc` check the console without a built client (dist/).

export type {
  GetDailyStatsResult,
  GetMessageResult,
  GetQuotaResult,
  GetRecipientStatusResult,
  ListAuditEventsResult,
  ListContactsResult,
  ListDomainsResult,
  ListGroupsResult,
  ListKeysResult,
  ListMessagesBody,
  ListMessagesResult,
  ListSuppressionsBody,
  ListSuppressionsResult,
  ListTemplatesResult,
  ListWebhookDeliveriesResult,
  ListWebhooksResult,
  WebhookEvent,
} from '../../client/src/generated/core.js';
export { MESSAGE_STATUSES, WEBHOOK_EVENT_TYPES } from '../../client/src/generated/core.js';
export { Mailsvc, MailsvcError } from '../../client/src/index.js';
