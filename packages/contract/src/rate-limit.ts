// Rate limits for the core (per API key, failed authentication per client IP) and the wrapper
// (per client IP, per recipient), with rate-limiter-flexible. Per process by default; with a Redis
// URL every replica counts in the same Redis. When Redis cannot be reached, each limiter falls back
// to its in-process twin (the library's insurance limiter) and the store says so in the log once,
// and again when Redis is back: a Redis outage loosens limits to per process, it never stops
// requests.
//
// Semantics: fixed windows per key, starting at the key's first request. A policy may add a burst
// allowance, counted over its own longer window and used only when the main window is used up
// (rate-limiter-flexible's BurstyRateLimiter): "100 per second, plus 100 more per 10 seconds"
// sustains 100/s and absorbs a burst of 200 at once.
import { Redis } from 'ioredis';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

export interface LimitPolicy {
  /** The policy's name in the RateLimit headers ("per-key", "per-ip", …). */
  name: string;
  /** Requests per window; 0 turns the limit off. */
  points: number;
  windowSeconds: number;
  /** Extra requests allowed per `windowSeconds` of its own once the main window is used up. */
  burst?: { points: number; windowSeconds: number };
}

export interface LimitDecision {
  ok: boolean;
  /** Requests left in the main window. */
  remaining: number;
  /** Seconds until the main window starts afresh. */
  resetSeconds: number;
  /** When refused: seconds to wait (at least 1). */
  retryAfterSeconds: number;
}

export interface Limiter {
  readonly policy: LimitPolicy;
  /** Counts `points` requests (default 1: a batch of n sends counts n). */
  consume(key: string, points?: number): Promise<LimitDecision>;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** The limiter of a policy (one per distinct policy, made on first use). */
  limiter(policy: LimitPolicy): Limiter;
  /**
   * Whether the shared store answers, waiting up to `timeoutMs` for it (memory: at once). Until
   * it does, limits are counted in this process.
   */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface RateLimitLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface Consumer {
  consume(key: string, points?: number): Promise<RateLimiterRes>;
}

const UNLIMITED: LimitDecision = {
  ok: true,
  remaining: Number.MAX_SAFE_INTEGER,
  resetSeconds: 0,
  retryAfterSeconds: 0,
};

function decisionOf(res: RateLimiterRes, ok: boolean): LimitDecision {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return { ok, remaining: res.remainingPoints, resetSeconds: seconds, retryAfterSeconds: ok ? 0 : seconds };
}

function wrap(policy: LimitPolicy, consumer: Consumer | null): Limiter {
  return {
    policy,
    async consume(key, points = 1) {
      if (!consumer) return UNLIMITED;
      try {
        return decisionOf(await consumer.consume(key, points), true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decisionOf(err, false);
        throw err;
      }
    },
  };
}

const policyKey = (p: LimitPolicy) =>
  `${p.name}:${p.points}/${p.windowSeconds}${p.burst ? `+${p.burst.points}/${p.burst.windowSeconds}` : ''}`;

function makeStore(
  kind: RateLimitStore['kind'],
  build: (keyPrefix: string, points: number, duration: number) => Consumer & object,
  close: () => Promise<void>,
  ready: RateLimitStore['ready'] = async () => true,
): RateLimitStore {
  const limiters = new Map<string, Limiter>();
  return {
    kind,
    limiter(policy) {
      const id = policyKey(policy);
      let limiter = limiters.get(id);
      if (!limiter) {
        let consumer: Consumer | null = null;
        if (policy.points > 0) {
          const main = build(`${id}:main`, policy.points, policy.windowSeconds);
          consumer = policy.burst
            ? new BurstyRateLimiter(
                main as never,
                build(`${id}:burst`, policy.burst.points, policy.burst.windowSeconds) as never,
              )
            : main;
        }
        limiter = wrap(policy, consumer);
        limiters.set(id, limiter);
      }
      return limiter;
    },
    ready,
    close,
  };
}

/** Counts in this process only. */
export function memoryRateLimitStore(): RateLimitStore {
  return makeStore(
    'memory',
    (keyPrefix, points, duration) => new RateLimiterMemory({ keyPrefix, points, duration }),
    async () => {},
  );
}

/**
 * Counts in Redis, shared by every process using the same URL and prefix; falls back to counting
 * in this process while Redis is unreachable (commands time out after 500 ms).
 */
export function redisRateLimitStore(
  url: string,
  opts: { log: RateLimitLog; prefix?: string },
): RateLimitStore {
  const prefix = opts.prefix ?? 'mailsvc:rl';
  const client = new Redis(url, {
    // Fail fast while disconnected: the insurance limiter answers instead.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    connectTimeout: 2000,
  });
  let isDown = false;
  client.on('error', (err: Error & { code?: string }) => {
    if (isDown) return;
    isDown = true;
    opts.log.warn(
      { redis: redactUrl(url), reason: err.code ?? err.message },
      'Redis is unreachable: rate limits are counted per process until it is back',
    );
  });
  client.on('ready', () => {
    if (!isDown) return;
    isDown = false;
    opts.log.info({ redis: redactUrl(url) }, 'Redis is reachable again: rate limits are shared');
  });
  return makeStore(
    'redis',
    (keyPrefix, points, duration) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `${prefix}:${keyPrefix}`,
        points,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
      }),
    async () => {
      client.disconnect();
    },
    async (timeoutMs) => {
      if (client.status === 'ready') return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          client.off('ready', onReady);
          resolve(false);
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(timer);
          resolve(true);
        };
        client.once('ready', onReady);
      });
    },
  );
}

/** Redis when a URL is given, else per process. */
export function createRateLimitStore(redisUrl: string | undefined, log: RateLimitLog): RateLimitStore {
  return redisUrl ? redisRateLimitStore(redisUrl, { log }) : memoryRateLimitStore();
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'redis';
  }
}

/**
 * The key a client address is counted under: an IPv4 address as it is (also when written as
 * IPv4-mapped IPv6), an IPv6 address by its /64 — one subscriber's allocation, which it can
 * otherwise walk through for a fresh allowance per address.
 */
export function clientLimitKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The IETF httpapi RateLimit fields (draft-ietf-httpapi-ratelimit-headers, structured fields):
 * `RateLimit-Policy` lists the policy (and its burst allowance), `RateLimit` the state of the main
 * window. On a refusal, `Retry-After` too.
 */
export function rateLimitHeaders(policy: LimitPolicy, decision: LimitDecision): Record<string, string> {
  if (policy.points <= 0) return {};
  const policies = [`"${policy.name}";q=${policy.points};w=${policy.windowSeconds}`];
  if (policy.burst)
    policies.push(`"${policy.name}-burst";q=${policy.burst.points};w=${policy.burst.windowSeconds}`);
  const headers: Record<string, string> = {
    'RateLimit-Policy': policies.join(', '),
    RateLimit: `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.ok) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}
