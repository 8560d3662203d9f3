// The core API's contract: every operation of the seed (and its extensions) with one name used in
// three places — the route (`POST /v1/send`), the use-case (`sendEmail`), the SDK method
// (`client.emails.send()`) — and the request and response
// schemas and the error codes each can answer. The server registers its routes from this table,
// @fastify/swagger turns it into the OpenAPI document, and the client is typed by it.
// Browser-safe (TypeBox only).
//
// Layout: one file per operation in operations/, named for its operationId (sendEmail is
// operations/send-email.ts), holding its request and response schemas, its example and its error
// codes; what several operations share (timestamps and ids, the message summary, the contact and
// its list filters, groups, the bulk-send body, the common error sets, the Operation type) sits
// in operations/shared/, one small file per piece. This file is the index: the table of every
// operation, and every name @mailsvc/contract/api exports.

import { addContactsToGroup } from './operations/add-contacts-to-group.js';
import { addDomain } from './operations/add-domain.js';
import { addSuppression } from './operations/add-suppression.js';
import { cancelMessage } from './operations/cancel-message.js';
import { createKey } from './operations/create-key.js';
import { createWebhook } from './operations/create-webhook.js';
import { deleteDomain } from './operations/delete-domain.js';
import { deleteGroup } from './operations/delete-group.js';
import { deleteWebhook } from './operations/delete-webhook.js';
import { getBulkSend } from './operations/get-bulk-send.js';
import { getContact } from './operations/get-contact.js';
import { getDailyStats } from './operations/get-daily-stats.js';
import { getDomain } from './operations/get-domain.js';
import { getMessage } from './operations/get-message.js';
import { getQuota } from './operations/get-quota.js';
import { getRecipientStatus } from './operations/get-recipient-status.js';
import { getWebhook } from './operations/get-webhook.js';
import { ingestRelayEvent } from './operations/ingest-relay-event.js';
import { ingestSesEvent } from './operations/ingest-ses-event.js';
import { listAuditEvents } from './operations/list-audit-events.js';
import { listContacts } from './operations/list-contacts.js';
import { listDomains } from './operations/list-domains.js';
import { listGroups } from './operations/list-groups.js';
import { listKeys } from './operations/list-keys.js';
import { listMessages } from './operations/list-messages.js';
import { listSuppressions } from './operations/list-suppressions.js';
import { listTemplates } from './operations/list-templates.js';
import { listWebhookDeliveries } from './operations/list-webhook-deliveries.js';
import { listWebhooks } from './operations/list-webhooks.js';
import { previewSendToContacts } from './operations/preview-send-to-contacts.js';
import { removeContactsFromGroup } from './operations/remove-contacts-from-group.js';
import { removeSuppression } from './operations/remove-suppression.js';
import { replayWebhookDeliveries } from './operations/replay-webhook-deliveries.js';
import { rescheduleMessage } from './operations/reschedule-message.js';
import { resubscribeRecipient } from './operations/resubscribe-recipient.js';
import { revokeKey } from './operations/revoke-key.js';
import { rotateDomainDkim } from './operations/rotate-domain-dkim.js';
import { rotateWebhookSecret } from './operations/rotate-webhook-secret.js';
import { sendBatch } from './operations/send-batch.js';
import { sendEmail } from './operations/send-email.js';
import { sendToContacts } from './operations/send-to-contacts.js';
import type { Operation } from './operations/shared/operation.js';
import { testWebhook } from './operations/test-webhook.js';
import { updateWebhook } from './operations/update-webhook.js';
import { upsertContact } from './operations/upsert-contact.js';
import { upsertContacts } from './operations/upsert-contacts.js';
import { upsertGroup } from './operations/upsert-group.js';
import { verifyDomain } from './operations/verify-domain.js';

export { AddDomainRequest, AddDomainResponse } from './operations/add-domain.js';
export { AddSuppressionRequest, AddSuppressionResponse } from './operations/add-suppression.js';
export { CancelMessageRequest, CancelMessageResponse } from './operations/cancel-message.js';
export { CreateKeyRequest, CreateKeyResponse, KEY_NAME_MAX } from './operations/create-key.js';
export {
  CreateWebhookRequest,
  CreateWebhookResponse,
  WEBHOOK_SECRET_EXAMPLE,
  WebhookSecret,
} from './operations/create-webhook.js';
export { DeleteDomainRequest, DeleteDomainResponse } from './operations/delete-domain.js';
export { DeleteGroupRequest } from './operations/delete-group.js';
export { DeleteWebhookRequest, DeleteWebhookResponse } from './operations/delete-webhook.js';
export { BulkJob, GetBulkSendRequest, GetBulkSendResponse } from './operations/get-bulk-send.js';
export { GetContactRequest, GetContactResponse } from './operations/get-contact.js';
export {
  BOUNCE_RATE_LIMIT,
  COMPLAINT_RATE_LIMIT,
  DailyStats,
  GetDailyStatsRequest,
  GetDailyStatsResponse,
  STATS_MAX_DAYS,
} from './operations/get-daily-stats.js';
export { GetDomainRequest, GetDomainResponse } from './operations/get-domain.js';
export {
  GetMessageRequest,
  GetMessageResponse,
  MESSAGE_EVENT_TYPES,
  MessageEvent,
} from './operations/get-message.js';
export { Quota, QuotaResponse } from './operations/get-quota.js';
export {
  RecipientStatus,
  RecipientStatusRequest,
  RecipientStatusResponse,
} from './operations/get-recipient-status.js';
export { GetWebhookRequest, GetWebhookResponse } from './operations/get-webhook.js';
export {
  RELAY_EVENT_OUTCOMES,
  RELAY_EVENT_RULES,
  RelayEventRequest,
  RelayEventResponse,
} from './operations/ingest-relay-event.js';
export { SesEventResponse, SnsMessageRequest } from './operations/ingest-ses-event.js';
export {
  AUDIT_PAGE_SIZE_DEFAULT,
  AUDIT_PAGE_SIZE_MAX,
  AuditEventItem,
  ListAuditEventsRequest,
  ListAuditEventsResponse,
} from './operations/list-audit-events.js';
export {
  LIST_FILTERS_MAX,
  LIST_PAGE_SIZE_DEFAULT,
  LIST_PAGE_SIZE_MAX,
  ListContactsRequest,
  ListContactsResponse,
} from './operations/list-contacts.js';
export { ListDomainsRequest, ListDomainsResponse } from './operations/list-domains.js';
export { ListGroupsRequest, ListGroupsResponse } from './operations/list-groups.js';
export { ListKeysRequest, ListKeysResponse } from './operations/list-keys.js';
export {
  ListedMessage,
  ListMessagesRequest,
  ListMessagesResponse,
  MESSAGE_LIST_METADATA_FILTERS_MAX,
  MESSAGE_LIST_PAGE_SIZE_DEFAULT,
  MESSAGE_LIST_PAGE_SIZE_MAX,
} from './operations/list-messages.js';
export {
  ListSuppressionsRequest,
  ListSuppressionsResponse,
  SUPPRESSION_PAGE_SIZE_DEFAULT,
  SUPPRESSION_PAGE_SIZE_MAX,
} from './operations/list-suppressions.js';
export {
  ListTemplatesRequest,
  ListTemplatesResponse,
  TemplateInfo,
} from './operations/list-templates.js';
export {
  ListWebhookDeliveriesRequest,
  ListWebhookDeliveriesResponse,
  WEBHOOK_ATTEMPT_PAGE_SIZE_DEFAULT,
  WEBHOOK_ATTEMPT_PAGE_SIZE_MAX,
  WEBHOOK_ATTEMPT_RETENTION_DAYS,
  WebhookAttempt,
} from './operations/list-webhook-deliveries.js';
export { ListWebhooksRequest, ListWebhooksResponse } from './operations/list-webhooks.js';
export { BulkSendPreviewResponse } from './operations/preview-send-to-contacts.js';
export { RemoveSuppressionRequest, RemoveSuppressionResponse } from './operations/remove-suppression.js';
export {
  ReplayWebhookDeliveriesRequest,
  ReplayWebhookDeliveriesResponse,
  WEBHOOK_REPLAY_MAX,
} from './operations/replay-webhook-deliveries.js';
export {
  RescheduleMessageRequest,
  RescheduleMessageResponse,
} from './operations/reschedule-message.js';
export { ResubscribeRequest } from './operations/resubscribe-recipient.js';
export { RevokeKeyRequest, RevokeKeyResponse } from './operations/revoke-key.js';
export { RotateDomainDkimRequest, RotateDomainDkimResponse } from './operations/rotate-domain-dkim.js';
export {
  RotateWebhookSecretRequest,
  RotateWebhookSecretResponse,
  WEBHOOK_SECRET_GRACE_HOURS,
} from './operations/rotate-webhook-secret.js';
export {
  SEND_BATCH_MAX,
  SendBatchRequest,
  SendBatchResponse,
  SendBatchResult,
} from './operations/send-batch.js';
export { SendRequest, SendResponse } from './operations/send-email.js';
export { BulkSendResponse } from './operations/send-to-contacts.js';
export {
  API_KEY_EXAMPLE,
  ApiKeyInfo,
  KEY_SCOPES,
  KeyId,
  type KeyScope,
  KeyScopeSchema,
  TEMPLATE_CATEGORIES,
  TemplateCategories,
  type TemplateCategoryName,
} from './operations/shared/api-key.js';
export {
  BULK_SEND_RULES,
  BulkSendRequest,
  SKIP_REASONS,
  type SkipReason,
} from './operations/shared/bulk-send.js';
export {
  CONTACT_GROUPS_MAX,
  CONTACT_NAME_MAX,
  CONTACT_STATUSES,
  Contact,
  ContactStatus,
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELD_STRING_MAX,
  CUSTOM_FIELDS_MAX,
} from './operations/shared/contact.js';
export { ContactFilter } from './operations/shared/contact-filter.js';
export {
  DomainId,
  DomainRecord,
  SENDING_DOMAIN_EXAMPLE,
  SendingDomain,
} from './operations/shared/domain.js';
export { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './operations/shared/error-sets.js';
export { ContactGroup, GROUP_SLUG_PATTERN, GroupSlug } from './operations/shared/group.js';
export { GroupMembersRequest, GroupMembersResponse } from './operations/shared/group-members.js';
export { IdempotencyKeyHeader } from './operations/shared/idempotency-key-header.js';
export { BulkJobId, ContactId } from './operations/shared/ids.js';
export { LIST_CURSOR_TTL_HOURS } from './operations/shared/list-fields.js';
export { MESSAGE_STATUSES, MessageStatus, MessageSummary } from './operations/shared/message.js';
export {
  METADATA_EXAMPLE,
  METADATA_KEY_PATTERN,
  METADATA_KEYS_MAX,
  METADATA_VALUE_MAX,
  METADATA_VALUE_PATTERN,
  Metadata,
} from './operations/shared/metadata.js';
export { OkResponse } from './operations/shared/ok-response.js';
export type { Operation } from './operations/shared/operation.js';
export { SCHEDULE_MAX_DAYS, ScheduledAt } from './operations/shared/schedule.js';
export {
  SUPPRESSION_NOTE_MAX,
  SUPPRESSION_REASONS,
  Suppression,
  type SuppressionReason,
} from './operations/shared/suppression.js';
export {
  WEBHOOK_ENDPOINTS_MAX,
  WEBHOOK_EVENT_DATA,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEvent,
  type WebhookEventType,
  webhookPayloadSchema,
} from './operations/shared/webhook.js';
export { TestWebhookRequest, TestWebhookResponse } from './operations/test-webhook.js';
export { UpdateWebhookRequest, UpdateWebhookResponse } from './operations/update-webhook.js';
export {
  UpsertContactRequest,
  UpsertContactResponse,
} from './operations/upsert-contact.js';
export {
  UPSERT_MANY_MAX,
  UpsertContactsRequest,
  UpsertContactsResponse,
} from './operations/upsert-contacts.js';
export { GroupName, UpsertGroupRequest, UpsertGroupResponse } from './operations/upsert-group.js';
export { VerifyDomainRequest, VerifyDomainResponse } from './operations/verify-domain.js';

/** Every operation of the core API, by operationId (= the use-case's name). */
export const operations = {
  getQuota,
  getDailyStats,
  listTemplates,
  sendEmail,
  sendBatch,
  getRecipientStatus,
  resubscribeRecipient,
  getMessage,
  listMessages,
  cancelMessage,
  rescheduleMessage,
  ingestRelayEvent,
  ingestSesEvent,
  upsertContact,
  upsertContacts,
  getContact,
  listContacts,
  upsertGroup,
  listGroups,
  deleteGroup,
  addContactsToGroup,
  removeContactsFromGroup,
  sendToContacts,
  previewSendToContacts,
  getBulkSend,
  createKey,
  listKeys,
  revokeKey,
  listAuditEvents,
  listSuppressions,
  addSuppression,
  removeSuppression,
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  listWebhookDeliveries,
  replayWebhookDeliveries,
  addDomain,
  listDomains,
  getDomain,
  verifyDomain,
  rotateDomainDkim,
  deleteDomain,
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;
