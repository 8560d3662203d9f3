// When a failed webhook delivery is tried again (DESIGN.md §11, the Standard Webhooks schedule):
// at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the attempt before,
// each ±10 % (so an endpoint that came back is not hit by every waiting delivery in the same
// second); a Retry-After the receiver gave is taken instead when it asks for longer, up to 1 h.
// After the tenth attempt the delivery has failed for good.

/** The wait before attempt n+1 (index n-1), in seconds; the first attempt is immediate. */
export const RETRY_DELAYS_S = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;

/** Retry-After is honoured up to this. */
export const RETRY_AFTER_CAP_S = 3600;

/** An endpoint whose deliveries have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_DAYS = 5;

/**
 * The next attempt after failed attempt number `attempt` (1-based), or null when it was the last.
 * `random` in [0, 1) (injectable for tests).
 */
export function nextWebhookAttempt(
  now: Date,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): Date | null {
  const base = RETRY_DELAYS_S[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * (0.9 + 0.2 * random());
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(retryAfterSeconds, RETRY_AFTER_CAP_S);
  return new Date(now.getTime() + Math.round(Math.max(jittered, asked) * 1000));
}
