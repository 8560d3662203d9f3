// @mailsvc/client: the typed SDK of the mailsvc core API and of the template-route wrapper.
export { Mailsvc, type MailsvcOptions, type SendEmailInput, type SendOptions } from './core.js';
export type { DomainsApi } from './domains.js';
export {
  type ClientErrorCode,
  isMailsvcError,
  MailsvcError,
  type MailsvcErrorCode,
} from './errors.js';
export { MailsvcEvents, type RelayEventOptions } from './events.js';
export type {
  CoreErrorCode,
  CoreErrorStatus,
  ErrorDetail,
  GetContactBody,
  GetContactResult,
  GetDailyStatsBody,
  GetDailyStatsResult,
  GetMessageBody,
  GetMessageResult,
  GetQuotaResult,
  GetRecipientStatusBody,
  GetRecipientStatusResult,
  ListContactsBody,
  ListContactsResult,
  ListTemplatesBody,
  ListTemplatesResult,
  OperationErrorCode,
  OperationId,
  ResubscribeRecipientBody,
  ResubscribeRecipientResult,
  SendEmailBody,
  SendEmailResult,
  UpsertContactBody,
  UpsertContactResult,
  UpsertContactsBody,
  UpsertContactsResult,
  WebhookEvent,
  WrapperOnlyErrorCode,
  WrapperOnlyErrorStatus,
} from './generated/core.js';
export { MESSAGE_STATUSES, WEBHOOK_EVENT_TYPES } from './generated/core.js';
export type * from './generated/templates.js';
export type { WrapperRouteTemplates } from './generated/wrapper.js';
export type { TemplateDataOf, TemplateId, TemplateVersionOf, VersionedData } from './templates.js';
export type { CallOptions, ClientOptions, RetryEvent } from './transport.js';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError } from './verify-webhook.js';
export type { WebhooksApi } from './webhooks.js';
export {
  MailsvcWrapper,
  type MailsvcWrapperOptions,
  type WrapperMethod,
  type WrapperRoutes,
  type WrapperSendInput,
} from './wrapper.js';
