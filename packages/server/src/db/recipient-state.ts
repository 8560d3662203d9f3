// A recipient's consent and delivery facts in one environment, as every reader gets them from the
// database (DESIGN.md §5): the one type and the one mapper from a row (Date columns, or ISO strings
// from json_build_object). What they mean for a send is domain/recipients/eligibility.ts.

/** Why a recipient may not be sent a template now (recipient_refusal() in db/functions/recipient_refusal.sql). */
export type RecipientRefusal = 'recipient_complained' | 'recipient_unsubscribed' | 'recipient_suppressed';

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

/** The one mapper from what a query returns to a RecipientState; null when the address has no row. */
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
