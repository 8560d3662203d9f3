import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AcceptBatcher } from '../db/accept-batcher.js';
import type { Db } from '../db/schema.js';
import type { QueueSignal } from '../delivery/queue-signal.js';
import type { KeyLookupCache } from './auth/authenticate.js';

/** Keys derived once at start-up; never logged. */
export interface ServiceKeys {
  /** HMAC-SHA256 key of unsubscribe tokens. */
  unsubscribe: Buffer;
}

/** What every use-case is given, wired once at start-up (never imported as globals). */
export interface Deps {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  keyCache: KeyLookupCache;
  /** Wakes delivery workers after an accept. */
  queue: QueueSignal;
  keys: ServiceKeys;
  /** Group commit of accepts (one per process: its batches share transactions). */
  accepts: AcceptBatcher;
}
