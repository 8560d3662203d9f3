// Natural batching of database calls, no timers: when fewer than maxConcurrent batches are
// running, what is pending runs at once (a lone call waits for nothing); otherwise calls queue,
// and each batch that completes starts the next with what queued meanwhile (up to maxBatch).
//
// Used for the accept of POST /v1/send (group commit: sends accepted together share one
// transaction, one update of each usage counter row and one commit flush; the counter row of a
// tenant is locked until its commit is on disk, so one transaction per send limits a tenant to
// one send per flush) and for the read of a refused send's context (one query for many sends).
//
// A batch that fails undoes all of it (one statement, one transaction). One bad item must not
// fail the others: when `isolate(err)` says the failure may be an item's own (for the send
// batchers: an error the database raised for the statement, isStatementError), each item of the
// batch is run again on its own, so only the bad one fails. Otherwise every call of the batch
// fails with that error: when the database is unreachable (503 for a send: nothing was committed,
// a retry with the same Idempotency-Key is safe), and when our own code failed after the
// statement (the batch may have committed: running its items again could accept them twice).

interface Pending<I, O> {
  item: I;
  resolve(outcome: O): void;
  reject(err: unknown): void;
}

export interface BatcherOptions {
  /** Batches running at once (each holds one pool connection). */
  maxConcurrent: number;
  /** Items per batch at most. */
  maxBatch: number;
  /** Whether a failed batch of several items is retried item by item (default: never). */
  isolate?: (err: unknown) => boolean;
  /** Told the size of every batch that starts (metrics). */
  onBatch?: (size: number) => void;
}

export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #maxConcurrent: number;
  readonly #maxBatch: number;
  readonly #isolate: (err: unknown) => boolean;
  readonly #onBatch: ((size: number) => void) | undefined;
  #pending: Pending<I, O>[] = [];
  #running = 0;

  /** run: one result per item, in the items' order. */
  constructor(run: (items: I[]) => Promise<O[]>, opts: BatcherOptions) {
    this.#run = run;
    this.#maxConcurrent = Math.max(1, opts.maxConcurrent);
    this.#maxBatch = Math.max(1, opts.maxBatch);
    this.#isolate = opts.isolate ?? (() => false);
    this.#onBatch = opts.onBatch;
  }

  /** Runs one item together with whatever else is pending; settles once its batch is done. */
  call(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.#maxConcurrent && this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#maxBatch);
      this.#onBatch?.(batch.length);
      this.#running++;
      void this.#flush(batch).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
  }

  async #flush(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.#run(batch.map((p) => p.item));
      for (const [i, p] of batch.entries()) p.resolve(results[i]!);
    } catch (err) {
      if (batch.length === 1 || !this.#isolate(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
      // One at a time, in the batch's slot: the batch's other items succeed on their own.
      for (const p of batch) {
        try {
          p.resolve((await this.#run([p.item]))[0]!);
        } catch (itemErr) {
          p.reject(itemErr);
        }
      }
    }
  }
}
