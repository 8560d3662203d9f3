// When a temporary failure is tried again (DESIGN.md §4): 1, 5, 15, 30, 60 minutes, then every
// 2 hours, until the message's expiry (security 1 h, transactional 72 h, notification 24 h).
const MINUTE = 60_000;
const BACKOFF_MS = [1, 5, 15, 30, 60, 120].map((m) => m * MINUTE);

/** Delay after the `attempts`-th failed attempt (1-based). */
export function backoffMs(attempts: number): number {
  return BACKOFF_MS[Math.min(Math.max(attempts, 1), BACKOFF_MS.length) - 1]!;
}

/** The next attempt, or null when it would fall after the expiry. */
export function nextAttemptAt(
  now: Date,
  attempts: number,
  expiresAt: Date,
  retryAfterMs?: number,
): Date | null {
  const next = new Date(now.getTime() + Math.max(backoffMs(attempts), retryAfterMs ?? 0));
  return next.getTime() < expiresAt.getTime() ? next : null;
}
