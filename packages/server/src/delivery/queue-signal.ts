// Wakes workers when a message is accepted, so a new message is picked up at once rather than
// at the next poll. PostgreSQL: LISTEN/NOTIFY, so workers in other processes hear it.
// PGlite (one process): an in-process event. Polling remains the safety net either way: a lost
// notification delays a message by at most one poll interval.
import { EventEmitter } from 'node:events';
import pg from 'pg';

export const QUEUE_CHANNEL = 'mailsvc_queue';

export interface QueueSignal {
  /** Called after an accept commits. Bursts are coalesced into one wake-up. */
  notify(): void;
  /** Calls `listener` on every wake-up; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  close(): Promise<void>;
}

export function inProcessSignal(): QueueSignal {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let pending = false;
  return {
    notify() {
      if (pending) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        events.emit('wake');
      });
    },
    subscribe(listener) {
      events.on('wake', listener);
      return () => events.off('wake', listener);
    },
    async close() {
      events.removeAllListeners();
    },
  };
}

/**
 * NOTIFY is sent outside the accept transaction, at most once per `coalesceMs`: PostgreSQL
 * serialises the commits of transactions that NOTIFY, which would cap accepts per second.
 * LISTEN uses one dedicated connection, opened on the first subscribe and re-opened if lost.
 */
export function postgresSignal(pool: pg.Pool, connectionString: string, coalesceMs = 5): QueueSignal {
  const local = inProcessSignal();
  let timer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;
  let closed = false;
  let subscribers = 0;

  async function listen() {
    if (closed || listener) return;
    const client = new pg.Client({ connectionString });
    listener = client;
    client.on('notification', () => local.notify());
    client.on('error', () => {
      // Dropped connection: reconnect after a pause; polling covers the gap.
      listener = undefined;
      client.end().catch(() => {});
      if (!closed) setTimeout(() => listen().catch(() => {}), 1000).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${QUEUE_CHANNEL}`);
    } catch {
      listener = undefined;
      client.end().catch(() => {});
      if (!closed) setTimeout(() => listen().catch(() => {}), 1000).unref();
    }
  }

  return {
    notify() {
      if (timer || closed) return;
      timer = setTimeout(() => {
        timer = undefined;
        pool.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, '']).catch(() => {});
      }, coalesceMs);
    },
    subscribe(fn) {
      subscribers++;
      if (subscribers === 1) listen().catch(() => {});
      return local.subscribe(fn);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await local.close();
      await listener?.end().catch(() => {});
    },
  };
}
