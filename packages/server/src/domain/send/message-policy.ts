// What a message is given when accepted (DESIGN.md §4, §7): its queue priority, how long delivery
// is attempted before it expires, and how long its Idempotency-Key answers with it. Single sends
// (send-email.ts) and bulk sends (domain/bulk/send-to-contacts.ts) take them from here; the
// stored priority is what the worker claims by (db/functions/claim_messages.sql) and what the SMTP
// pool sends waiting messages in order of.
import type { TemplateCategory } from '../../db/schema.js';

const HOUR = 3_600_000;

/** How long delivery is attempted before a message expires. */
export const EXPIRY_MS: Record<TemplateCategory, number> = {
  security: HOUR,
  transactional: 72 * HOUR,
  notification: 24 * HOUR,
};

/** Lower runs first: security before transactional before notification. */
export const PRIORITY: Record<TemplateCategory, number> = { security: 0, transactional: 2, notification: 4 };

/** A bulk message runs after the single sends of its category, before the next category's. */
export const BULK_PRIORITY_OFFSET = 1;

/** The priority stored with a message. */
export function messagePriority(category: TemplateCategory, isBulk: boolean): number {
  return PRIORITY[category] + (isBulk ? BULK_PRIORITY_OFFSET : 0);
}

/** How long an Idempotency-Key answers with its message. */
export const IDEMPOTENCY_WINDOW_MS = 24 * HOUR;
