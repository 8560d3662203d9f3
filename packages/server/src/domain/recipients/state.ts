// A recipient's state in one environment (DESIGN.md §5): the one type every reader maps to, the
// refusal rule sends and deliveries apply, the state the status endpoint reports, and the bounce
// policy the repository applies in SQL. Kept per environment and normalised address.
import type { TemplateCategory } from '../../db/schema.js';

/** The consent and delivery facts the rules read. */
export interface RecipientState {
  unsubscribedAt: Date | null;
  resubscribedAt: Date | null;
  complainedAt: Date | null;
  cooldownUntil: Date | null;
  suppressedUntil: Date | null;
}

/** The whole record, as the status endpoint reports it. */
export interface RecipientRecord extends RecipientState {
  hardBounceCount: number;
  complaintCount: number;
}

type Instant = Date | string | null | undefined;
const instant = (v: Instant): Date | null => (v === null || v === undefined ? null : new Date(v));

/**
 * The one mapper from what a query returns (Date columns, or ISO strings from json_build_object)
 * to a RecipientState; undefined/null when the address has no row.
 */
export function toRecipientState(
  raw: { [K in keyof RecipientState]: Instant } | null | undefined,
): RecipientState | null {
  if (!raw) return null;
  return {
    unsubscribedAt: instant(raw.unsubscribedAt),
    resubscribedAt: instant(raw.resubscribedAt),
    complainedAt: instant(raw.complainedAt),
    cooldownUntil: instant(raw.cooldownUntil),
    suppressedUntil: instant(raw.suppressedUntil),
  };
}

/**
 * The bounce policy (DESIGN.md §5): a hard bounce starts a 24 h cooldown, doubled for each further
 * bounce within 30 days of the previous one; the third in such a streak suppresses the address
 * for 30 days after it. The repository passes these to SQL (recipients.ts recordHardBounce).
 */
export const BOUNCE_POLICY = {
  cooldownHours: 24,
  streakWindowDays: 30,
  suppressAfterBounces: 3,
  suppressionDays: 30,
  /** The doubling stops here (24 h × 2¹⁰ ≈ 2.8 years): no overflow, and suppression comes first. */
  maxDoublings: 10,
} as const;
export type BouncePolicy = typeof BOUNCE_POLICY;

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
