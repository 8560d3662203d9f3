// Group commit of accepts: sends that arrive while the database is busy with earlier accepts are
// accepted together by one accept_messages() call, so they share one transaction, one update of
// each usage counter row and one commit flush (the counter row of a tenant is locked until its
// commit is on disk, so one transaction per send limits a tenant to one send per flush).
//
// Natural batching, no timers: when fewer than maxConcurrent flushes are running, what is
// pending is flushed at once (a lone send waits for nothing); otherwise sends queue, and each
// flush that completes starts the next with what queued meanwhile (up to maxBatch).
//
// A flush that fails with a database error rejects the promise of every send of its batch:
// each of those requests answers 500 and nothing of the batch was committed (one statement,
// one transaction), so a retry by the client is safe. One bad send can thus fail the others of
// its batch; the use-case has validated everything before, so only database trouble remains.
import { type AcceptItem, type AcceptOutcome, acceptMessages } from './repositories/send.js';
import type { Db } from './schema.js';

interface Pending {
  item: AcceptItem;
  resolve(outcome: AcceptOutcome): void;
  reject(err: unknown): void;
}

export interface AcceptBatcherOptions {
  /** Flushes running at once (each holds one pool connection). */
  maxConcurrent: number;
  /** Sends per flush at most. */
  maxBatch: number;
}

export class AcceptBatcher {
  readonly #db: Db;
  readonly #opts: AcceptBatcherOptions;
  #pending: Pending[] = [];
  #running = 0;

  constructor(db: Db, opts: AcceptBatcherOptions) {
    this.#db = db;
    this.#opts = { maxConcurrent: Math.max(1, opts.maxConcurrent), maxBatch: Math.max(1, opts.maxBatch) };
  }

  /** Accepts one send together with whatever else is pending; settles once its batch committed. */
  accept(item: AcceptItem): Promise<AcceptOutcome> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.#opts.maxConcurrent && this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#opts.maxBatch);
      this.#running++;
      void this.#flush(batch).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
  }

  async #flush(batch: Pending[]): Promise<void> {
    try {
      const outcomes = await acceptMessages(
        this.#db,
        batch.map((p) => p.item),
      );
      for (const [i, p] of batch.entries()) p.resolve(outcomes[i]!);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
