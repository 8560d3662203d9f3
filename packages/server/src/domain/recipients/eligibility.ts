// Whether a recipient may be sent a template of a category now (DESIGN.md §5), and the state the
// status endpoint reports: complained refuses everything; unsubscribed refuses notifications;
// a running cooldown or suppression refuses everything. Applied on accept (POST /v1/send, in SQL
// as recipient_refusal() in db/functions/recipient_refusal.sql for bulk sends and the contacts
// list; test/eligibility-parity.test.ts holds the two equal) and again before every attempt.
import type { RecipientState } from '../../db/recipient-state.js';
import type { TemplateCategory } from '../../db/schema.js';

export type Refusal = 'recipient_complained' | 'recipient_unsubscribed' | 'recipient_suppressed';

/** Unsubscribed: unsubscribed_at is set and no later resubscribe cleared it. */
export function isUnsubscribed(
  r: Pick<RecipientState, 'unsubscribedAt' | 'resubscribedAt'> | null | undefined,
): boolean {
  return !!r?.unsubscribedAt && (r.resubscribedAt === null || r.resubscribedAt < r.unsubscribedAt);
}

const isAfter = (d: Date | null, now: Date) => d !== null && d.getTime() > now.getTime();

/**
 * Whether a send of a template of this category may go now; the reason it may not, in order of
 * precedence. Applied on accept (POST /v1/send) and again by the worker before every attempt.
 */
export function recipientRefusal(
  r: RecipientState | null | undefined,
  category: TemplateCategory,
  now: Date,
): Refusal | null {
  if (!r) return null;
  if (r.complainedAt) return 'recipient_complained';
  if (category === 'notification' && isUnsubscribed(r)) return 'recipient_unsubscribed';
  if (isAfter(r.cooldownUntil, now) || isAfter(r.suppressedUntil, now)) return 'recipient_suppressed';
  return null;
}

export type RecipientStateName = 'clear' | 'unsubscribed' | 'cooldown' | 'suppressed' | 'complained';

/** The reported state, by precedence: complained, suppressed, cooldown, unsubscribed, clear. */
export function recipientStateName(r: RecipientState | null | undefined, now: Date): RecipientStateName {
  if (!r) return 'clear';
  if (r.complainedAt) return 'complained';
  if (isAfter(r.suppressedUntil, now)) return 'suppressed';
  if (isAfter(r.cooldownUntil, now)) return 'cooldown';
  if (isUnsubscribed(r)) return 'unsubscribed';
  return 'clear';
}

/** True only when a notification template would be accepted for this recipient now. */
export function canSendNotifications(r: RecipientState | null | undefined, now: Date): boolean {
  return recipientRefusal(r, 'notification', now) === null;
}
