import type { RateLimitStore } from '@mailsvc/contract/rate-limit';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Batcher } from '../db/batcher.js';
import type { AcceptItem, AcceptOutcome } from '../db/repositories/send.js';
import type { Db } from '../db/schema.js';
import type { QueueSignal } from '../delivery/queue-signal.js';
import type { Metrics } from '../metrics.js';
import type { KeyLookupCache } from './auth/authenticate.js';
import type { KeyUsage } from './auth/key-usage.js';
import type { AuthFailureLimiter } from './auth/rate-limit.js';
import type { SnsClient } from './feedback/ingest-ses-event.js';

/** Keys derived once at start-up; never logged. */
export interface ServiceKeys {
  /** HMAC-SHA256 key of unsubscribe tokens. */
  unsubscribe: Buffer;
  /** HMAC-SHA256 key of the tags in VERP bounce addresses (domain/feedback/signed-references.ts). */
  verp: Buffer;
  /** HMAC-SHA256 key of list cursors (domain/lists/signed-cursor.ts). */
  listCursor: Buffer;
}

/** What every use-case is given, wired once at start-up (never imported as globals). */
export interface Deps {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  keyCache: KeyLookupCache;
  /** When each key was last used, written at most once a minute (domain/auth/key-usage.ts). */
  keyUsage: KeyUsage;
  /** Wakes delivery workers after an accept. */
  queue: QueueSignal;
  keys: ServiceKeys;
  /** Request rate limits: per process, or shared through Redis (MAILSVC_REDIS_URL). */
  rateLimits: RateLimitStore;
  /** Failed authentications per client IP. */
  authFailures: AuthFailureLimiter;
  /** Amazon SNS for POST /v1/events/ses (certificates, subscription confirmations). */
  sns: SnsClient;
  /** Prometheus metrics of this process (metrics.ts), served at GET /metrics. */
  metrics: Metrics;
  /**
   * POST /v1/send's accepts, with the checks that need the database and their refusal codes,
   * batched per process (db/batcher.ts, runtime.ts).
   */
  send: {
    /** Group commit: sends accepted at the same moment share one transaction. */
    accepts: Batcher<AcceptItem, AcceptOutcome>;
  };
}
