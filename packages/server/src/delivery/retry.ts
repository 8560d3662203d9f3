// When a temporary failure is tried again (DESIGN.md §4): by default 1, 5, 15, 30, 60 minutes, then
// every 2 hours (MAILSVC_RETRY_DELAYS), until the message's expiry (security 1 h, transactional
// 72 h, notification 24 h).
const MINUTE = 60_000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1, 5, 15, 30, 60, 120].map((m) => m * MINUTE);

/** Delay after the `attempts`-th failed attempt (1-based); the last delay repeats. */
export function backoffMs(attempts: number, delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number {
  return delays[Math.min(Math.max(attempts, 1), delays.length) - 1]!;
}

/** The next attempt, or null when it would fall after the expiry. */
export function nextAttemptAt(
  now: Date,
  attempts: number,
  expiresAt: Date,
  retryAfterMs?: number,
  delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
): Date | null {
  const next = new Date(now.getTime() + Math.max(backoffMs(attempts, delays), retryAfterMs ?? 0));
  return next.getTime() < expiresAt.getTime() ? next : null;
}
