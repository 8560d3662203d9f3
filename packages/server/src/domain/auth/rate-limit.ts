// Request rate limits of the core (DESIGN.md §2): per API key, from its tenant's plan; and failed
// authentication per client IP. Counted by the store in Deps (per process, or in Redis with
// MAILSVC_REDIS_URL: @mailsvc/contract/rate-limit).
import type { LimitDecision, LimitPolicy, RateLimitStore } from '@mailsvc/contract/rate-limit';

/** A plan's limit unless it says otherwise (also the column defaults, 0005_rate_limits.sql). */
export const DEFAULT_RATE_LIMIT = { perSecond: 100, burst: 200 } as const;

/** The window over which a plan's burst allowance (burst − rate) is refilled. */
export const BURST_WINDOW_SECONDS = 10;

/** "rate per second, plus burst − rate more per 10 s": a key can send `burst` at once. */
export function apiKeyPolicy(limit: { perSecond: number; burst: number }): LimitPolicy {
  const extra = limit.burst - limit.perSecond;
  return {
    name: 'api-key',
    points: limit.perSecond,
    windowSeconds: 1,
    ...(extra > 0 && { burst: { points: extra, windowSeconds: BURST_WINDOW_SECONDS } }),
  };
}

/**
 * Failed authentications (an API key that is malformed, unknown or wrong; a wrong admin token) per
 * client. Once a client is over the limit, its wrong credentials are refused until its window
 * ends without asking the store again (a flood of guesses costs no round trips; unknown key ids
 * cost no query either, see KeyLookupCache). Times are real time, as the store's windows are.
 */
export class AuthFailureLimiter {
  readonly policy: LimitPolicy;
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly store: RateLimitStore,
    perMinute: number,
    private readonly maxBlocked = 10_000,
  ) {
    this.policy = { name: 'auth-failures', points: perMinute, windowSeconds: 60 };
  }

  /** Seconds the client must still wait, or 0 when it may try. */
  blockedFor(ip: string, nowMs: number): number {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.blockedUntil.delete(ip);
      return 0;
    }
    return Math.ceil((until - nowMs) / 1000);
  }

  async recordFailure(ip: string, nowMs: number): Promise<LimitDecision> {
    const decision = await this.store.limiter(this.policy).consume(ip);
    if (!decision.ok) {
      if (this.blockedUntil.size >= this.maxBlocked) this.blockedUntil.clear();
      this.blockedUntil.set(ip, nowMs + decision.retryAfterSeconds * 1000);
    }
    return decision;
  }
}
