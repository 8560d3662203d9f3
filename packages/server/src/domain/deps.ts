import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/schema.js';
import type { KeyLookupCache } from './auth/authenticate.js';

/** What every use-case is given, wired once at start-up (never imported as globals). */
export interface Deps {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  keyCache: KeyLookupCache;
}
