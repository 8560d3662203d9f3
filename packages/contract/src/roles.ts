// Who in a tenant's team may call what (DESIGN.md §14): a member's role, checked on the server for
// every /v1 operation the console calls with its session's credential. API keys are not members:
// their scope (full, send) is checked instead.
import type { OperationId } from './api.js';

export const MEMBER_ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * The least role that may call each API-key operation. viewer: everything that reads; developer:
 * what builds and runs an integration (sends, contacts, keys, webhooks, domains, suppressions
 * added); admin: consent decisions taken for a recipient (a suppression or hard-bounce cooldown
 * lifted, a resubscribe) and the team; owner: the owners.
 */
export const LEAST_ROLE = {
  getQuota: 'viewer',
  getDailyStats: 'viewer',
  listTemplates: 'viewer',
  sendEmail: 'developer',
  sendBatch: 'developer',
  getRecipientStatus: 'viewer',
  resubscribeRecipient: 'admin',
  getMessage: 'viewer',
  listMessages: 'viewer',
  cancelMessage: 'developer',
  rescheduleMessage: 'developer',
  upsertContact: 'developer',
  upsertContacts: 'developer',
  getContact: 'viewer',
  listContacts: 'viewer',
  upsertGroup: 'developer',
  listGroups: 'viewer',
  deleteGroup: 'developer',
  addContactsToGroup: 'developer',
  removeContactsFromGroup: 'developer',
  sendToContacts: 'developer',
  previewSendToContacts: 'viewer',
  getBulkSend: 'viewer',
  createKey: 'developer',
  listKeys: 'viewer',
  revokeKey: 'developer',
  listAuditEvents: 'viewer',
  listSuppressions: 'viewer',
  addSuppression: 'developer',
  removeSuppression: 'admin',
  createWebhook: 'developer',
  listWebhooks: 'viewer',
  getWebhook: 'viewer',
  updateWebhook: 'developer',
  deleteWebhook: 'developer',
  rotateWebhookSecret: 'developer',
  testWebhook: 'developer',
  listWebhookDeliveries: 'viewer',
  replayWebhookDeliveries: 'developer',
  addDomain: 'developer',
  listDomains: 'viewer',
  getDomain: 'viewer',
  verifyDomain: 'developer',
  rotateDomainDkim: 'developer',
  deleteDomain: 'developer',
} as const satisfies Partial<Record<OperationId, MemberRole>>;

export type MemberOperationId = keyof typeof LEAST_ROLE;

const RANK: Record<MemberRole, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

/** Whether a member of `role` may call the operation (false for operations members never call). */
export function roleAllows(role: MemberRole, operationId: string): boolean {
  const least = (LEAST_ROLE as Record<string, MemberRole | undefined>)[operationId];
  return least !== undefined && RANK[role] >= RANK[least];
}

/** Whether `role` is at least `least` (team management: admins manage members, owners owners). */
export const roleAtLeast = (role: MemberRole, least: MemberRole) => RANK[role] >= RANK[least];
