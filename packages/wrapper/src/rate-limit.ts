// Token buckets keyed by client IP or recipient address. In memory, per instance: N replicas (or
// N Firebase instances) allow up to N times the limit. Memory is bounded: the least recently used
// keys are dropped first, which can only make the limiter more lenient, never wrong the other way.

export interface RateLimitOptions {
  /** Tokens per window, also the burst size. 0 turns the limiter off. */
  limit: number;
  windowMs: number;
  /** Most keys kept at once. */
  maxKeys?: number;
  now?: () => number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(private readonly opts: RateLimitOptions) {
    this.perMs = opts.limit / opts.windowMs;
    this.maxKeys = opts.maxKeys ?? 50_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.buckets.size;
  }

  take(key: string): RateDecision {
    if (this.opts.limit <= 0) return { ok: true };
    const now = this.now();
    const found = this.buckets.get(key);
    const bucket = found
      ? { tokens: Math.min(this.opts.limit, found.tokens + (now - found.at) * this.perMs), at: now }
      : { tokens: this.opts.limit, at: now };
    // Re-insert so Map order is least recently used first.
    this.buckets.delete(key);
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)),
      };
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    while (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    return { ok: true };
  }
}
