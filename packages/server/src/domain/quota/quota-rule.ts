// The monthly quota (DESIGN.md §3 "Quota", §7). A tenant's plan allows `limit` messages a UTC month
// (period.ts) across its environments; past it, a plan with overage keeps sending and counts the
// excess, a plan without refuses with 429 monthly_quota_exceeded. Reserving is done in the accept
// statement, under the tenant's counter lock, by reserve_usage() in
// db/functions/reserve_usage.sql (single sends through accept_messages.sql, bulk sends whole or
// not at all); what the quota endpoint and `mailsvc admin usage show` report is monthlyStatus().

export type MonthlyStatus = 'available' | 'overage' | 'exhausted';

/** The month's state for `used` messages against the plan's `limit`. */
export function monthlyStatus(used: number, limit: number, overageAllowed: boolean): MonthlyStatus {
  if (used < limit) return 'available';
  return overageAllowed ? 'overage' : 'exhausted';
}
