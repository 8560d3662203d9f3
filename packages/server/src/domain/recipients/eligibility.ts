// Whether a recipient may be sent a template now (DESIGN.md §5). Used on accept (POST /v1/send,
// step 9) and again by the worker before every attempt.
import type { TemplateCategory } from '../../db/schema.js';

export interface RecipientState {
  unsubscribedAt: Date | null;
  resubscribedAt: Date | null;
  complainedAt: Date | null;
  cooldownUntil: Date | null;
  suppressedUntil: Date | null;
}

export type Refusal = 'recipient_complained' | 'recipient_unsubscribed' | 'recipient_suppressed';

/** Unsubscribed: unsubscribed_at is set and no later resubscribe cleared it. */
export function isUnsubscribed(
  r: Pick<RecipientState, 'unsubscribedAt' | 'resubscribedAt'> | null | undefined,
): boolean {
  return !!r?.unsubscribedAt && (r.resubscribedAt === null || r.resubscribedAt < r.unsubscribedAt);
}

/** The reason a send is refused, in the order of precedence; null when it may go. */
export function recipientRefusal(
  r: RecipientState | null | undefined,
  category: TemplateCategory,
  now: Date,
): Refusal | null {
  if (!r) return null;
  if (r.complainedAt) return 'recipient_complained';
  if (category === 'notification' && isUnsubscribed(r)) return 'recipient_unsubscribed';
  const t = now.getTime();
  if (
    (r.cooldownUntil && r.cooldownUntil.getTime() > t) ||
    (r.suppressedUntil && r.suppressedUntil.getTime() > t)
  ) {
    return 'recipient_suppressed';
  }
  return null;
}
