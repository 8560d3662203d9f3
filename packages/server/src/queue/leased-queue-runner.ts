// One runner for every queue kept in a table (STYLE.md §Request flow 9, Postal's worker): claim a
// batch under a lease (FOR UPDATE SKIP LOCKED, so several processes share a queue), work each item
// concurrently up to a limit, renew the leases of the items still being worked (heartbeat), and
// claim again as slots free up. Woken by a signal (new items) and by a fallback poll (retries
// falling due, leases of crashed processes running out). An item whose work throws is handed to
// the queue's `recordFailure` (an event on the item and a later retry), not only logged; an item
// whose failure cannot be recorded (or whose queue records failures inside `work` itself) waits
// out its lease and is claimed again. Nothing is lost either way: only a recorded outcome ends an
// item. Its queues: mail delivery (delivery/worker.ts), webhook deliveries (webhooks/webhook-worker.ts,
// which records its outcomes with the next claim: `claimRecording`) and domain checks
// (domains/domain-check-worker.ts).
import { randomBytes } from 'node:crypto';
import { isDatabaseUnavailable } from '../db/errors.js';
import type { Deps } from '../domain/deps.js';

export interface Lease {
  now: Date;
  limit: number;
  lockedUntil: Date;
  claimToken: string;
}

/** What a queue gives the runner. R: an outcome the runner records (queues with `claimRecording`). */
export interface LeasedQueue<T extends { claimToken: string }, R = void> {
  /** Claims up to `limit` items under the lease, marked with `claimToken`. */
  claim(lease: Lease): Promise<T[]>;
  /** Renews the leases of the claims still being worked. */
  extendLeases(claimTokens: string[], lockedUntil: Date): Promise<void>;
  /** Works one item to a recorded outcome (or, with `claimRecording`, returns the outcome). */
  work(item: T): Promise<R | undefined>;
  /**
   * Records an unexpected throw of `work` on the item and schedules it again (or, with
   * `claimRecording`, returns that outcome). Without it, the throw is logged and the item waits
   * out its lease.
   */
  recordFailure?(item: T, err: unknown): Promise<R | undefined>;
  /**
   * For a queue that records outcomes with its next claim, in one statement, so the slot an item
   * freed is filled in one round trip (the webhooks: a delivery's slot at its endpoint is free only
   * once its attempt is recorded): `work` returns the item's outcome instead of recording it, and
   * the runner passes the outcomes gathered since its last call here, in place of `claim`
   * (`lease.limit` 0: record only). An outcome is recorded at the next call, one at most a call
   * away; while that fails it is kept, and its item's lease renewed, until it is recorded.
   */
  claimRecording?(lease: Lease, outcomes: R[]): Promise<T[]>;
}

export interface RunnerOptions {
  /**
   * Items worked at once; a function for a limit that changes (read at every claim: lowered, the
   * items in flight finish and fewer follow them; raised, the next claim fills the new slots).
   */
  concurrency: number | (() => number);
  leaseMs: number;
  pollMs: number;
  /** For the log lines: "delivery", "webhooks". */
  name: string;
  /**
   * Whether a claim that found fewer items than it asked for means nothing more is due (default).
   * False for a queue whose claim holds some due items back (the webhooks' cap per endpoint): only
   * a claim that found nothing waits for a signal or the poll.
   */
  shortClaimMeansEmpty?: boolean;
}

type RunnerDeps = Pick<Deps, 'clock' | 'log'> & {
  /** New items were queued (another process or this one). Returns an unsubscribe. */
  subscribe?: (onNews: () => void) => () => void;
};

export class LeasedQueueRunner<T extends { claimToken: string; id: string }, R = void> {
  private inFlight = 0;
  /** Outcomes (claimRecording) waiting for the next call, with their items. */
  private readonly outcomes: { item: T; outcome: R }[] = [];
  private isRunning = false;
  private isClaiming = false;
  private isWakePending = false;
  /** False after a claim found fewer items than it asked for: only a signal or poll re-checks. */
  private mayHaveMore = true;
  /** Bumped by every signal and poll: a claim that raced a signal must not clear mayHaveMore. */
  private newsSeq = 0;
  private poll: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Claim token → items of that claim still being worked; their leases are kept alive. */
  private readonly activeClaims = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly deps: RunnerDeps,
    private readonly queue: LeasedQueue<T, R>,
    private readonly opts: RunnerOptions,
  ) {}

  get running(): boolean {
    return this.isRunning;
  }

  /** Items being worked now. */
  get busySlots(): number {
    return this.inFlight;
  }

  /** Items being worked now. */
  get busy(): number {
    return this.inFlight;
  }

  /** Looks for work now (a limit that was lowered may have been raised). */
  nudge(): void {
    this.wake(true);
  }

  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    this.unsubscribe = this.deps.subscribe?.(() => this.wake(true));
    this.poll = setInterval(() => this.wake(true), this.opts.pollMs);
    // A slow item must not let the lease of another claimed with it run out (another process
    // would work it again): renew the leases of every claim in flight.
    this.heartbeat = setInterval(() => this.renewLeases(), Math.max(250, Math.floor(this.opts.leaseMs / 3)));
    this.wake(true);
  }

  /**
   * Stops claiming and waits for the items in flight and their outcomes' record, renewing their
   * leases meanwhile. Outcomes that still cannot be recorded after a few tries are left to their
   * leases (the items are worked again).
   */
  async stop(): Promise<void> {
    this.isRunning = false;
    clearInterval(this.poll);
    this.unsubscribe?.();
    for (let tries = 0; ; tries++) {
      while (this.inFlight > 0 || this.isClaiming) await new Promise<void>((r) => this.idleWaiters.push(r));
      if (this.outcomes.length === 0) break;
      if (tries === 3) {
        this.deps.log.warn(
          { outcomes: this.outcomes.length },
          `${this.opts.name}: outcomes not recorded at stop; their items are worked again when their leases run out`,
        );
        break;
      }
      await new Promise((r) => setTimeout(r, this.opts.pollMs));
      this.wake(false);
    }
    clearInterval(this.heartbeat);
  }

  /** Tests with a movable clock: claim once, work everything claimed (outcomes recorded); the number worked. */
  async runOnce(): Promise<number> {
    const batch = await this.claim(this.slots());
    await Promise.all(batch.map((item) => this.run(item)));
    if (this.outcomes.length > 0) await this.claim(0);
    return batch.length;
  }

  /** Tests: run until nothing is due. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  private slots(): number {
    const { concurrency } = this.opts;
    return typeof concurrency === 'number' ? concurrency : concurrency();
  }

  private renewLeases(): void {
    const now = this.deps.clock.now();
    this.queue
      .extendLeases([...this.activeClaims.keys()], new Date(now.getTime() + this.opts.leaseMs))
      .catch((err) =>
        isDatabaseUnavailable(err)
          ? this.deps.log.warn(
              { err },
              `${this.opts.name}: database unavailable; renewing leases at the next heartbeat`,
            )
          : this.deps.log.error({ err }, `${this.opts.name}: renewing leases failed`),
      );
  }

  private wake(isNews: boolean): void {
    if (isNews) {
      this.newsSeq++;
      this.mayHaveMore = true;
    }
    // outcomes waiting are recorded whatever else (a stop, nothing more due)
    if (this.outcomes.length === 0 && (!this.isRunning || !this.mayHaveMore)) return;
    if (this.isClaiming) {
      this.isWakePending = true;
      return;
    }
    void this.fill();
  }

  private async fill(): Promise<void> {
    this.isClaiming = true;
    try {
      do {
        this.isWakePending = false;
        const slots = this.slots();
        const free = slots - this.inFlight;
        // Claim in batches: wait for a quarter of the slots unless the runner is idle.
        const wantsItems =
          this.isRunning &&
          this.mayHaveMore &&
          free > 0 &&
          !(this.inFlight > 0 && free < Math.ceil(slots / 4));
        if (!wantsItems && this.outcomes.length === 0) break;
        const limit = wantsItems ? free : 0;
        const seq = this.newsSeq;
        const batch = await this.claim(limit);
        const isShort = this.opts.shortClaimMeansEmpty === false ? batch.length === 0 : batch.length < limit;
        if (limit > 0 && isShort && seq === this.newsSeq) this.mayHaveMore = false;
        for (const item of batch) {
          this.inFlight++;
          void this.run(item).finally(() => {
            this.inFlight--;
            this.notifyIdle();
            // Where a claim holds items back (a cap), a finished item may be what held one back.
            this.wake(this.opts.shortClaimMeansEmpty === false);
          });
        }
      } while ((this.isWakePending && this.isRunning && this.mayHaveMore) || this.outcomes.length > 0);
    } catch (err) {
      if (isDatabaseUnavailable(err))
        this.deps.log.warn(
          { err },
          `${this.opts.name}: database unavailable; claiming again at the next poll`,
        );
      else this.deps.log.error({ err }, `${this.opts.name}: claiming failed; retrying at the next poll`);
    } finally {
      this.isClaiming = false;
      this.notifyIdle();
    }
  }

  /** Claims up to `limit` (0: none), with the outcomes waiting when the queue records them so. */
  private async claim(limit: number): Promise<T[]> {
    const now = this.deps.clock.now();
    const claimToken = randomBytes(12).toString('base64url');
    const lease = { now, limit, lockedUntil: new Date(now.getTime() + this.opts.leaseMs), claimToken };
    let batch: T[];
    if (this.queue.claimRecording) {
      const taken = this.outcomes.splice(0);
      try {
        batch = await this.queue.claimRecording(
          lease,
          taken.map((o) => o.outcome),
        );
      } catch (err) {
        if (isDatabaseUnavailable(err) || taken.length === 0) this.outcomes.unshift(...taken);
        else await this.recordEachAlone(taken, lease);
        throw err;
      }
      for (const o of taken) this.release(o.item);
    } else {
      batch = limit > 0 ? await this.queue.claim(lease) : [];
    }
    if (batch.length > 0) this.activeClaims.set(claimToken, batch.length);
    return batch;
  }

  /**
   * Works one item; a throw is recorded on the item (or, failing that, left to its lease). An
   * outcome returned for `claimRecording` waits for the next call, its item's lease kept alive.
   */
  private async run(item: T): Promise<void> {
    let outcome: R | undefined;
    try {
      outcome = await this.queue.work(item);
    } catch (err) {
      outcome = await this.failed(item, err);
    }
    if (outcome !== undefined && this.queue.claimRecording) this.outcomes.push({ item, outcome });
    else this.release(item);
  }

  private async failed(item: T, err: unknown): Promise<R | undefined> {
    if (!this.queue.recordFailure) {
      this.deps.log.error(
        { err, id: item.id },
        `${this.opts.name}: work failed unexpectedly; retried when its lease runs out`,
      );
      return undefined;
    }
    this.deps.log.error({ err, id: item.id }, `${this.opts.name}: work failed unexpectedly; recording it`);
    try {
      return await this.queue.recordFailure(item, err);
    } catch (recordErr) {
      // The lease runs out and the item is claimed again; nothing is lost.
      this.deps.log.error(
        { err: recordErr, id: item.id },
        `${this.opts.name}: recording the failure failed; the item is retried when its lease runs out`,
      );
      return undefined;
    }
  }

  /**
   * The database refused a call carrying outcomes (not an outage): one of them may be what it
   * refuses, and it must not hold the others and every later claim. Each is recorded alone; one
   * still refused is logged and let go (its lease runs out and the item is worked again).
   */
  private async recordEachAlone(taken: { item: T; outcome: R }[], lease: Lease): Promise<void> {
    for (const o of taken) {
      try {
        await this.queue.claimRecording!({ ...lease, limit: 0 }, [o.outcome]);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          this.outcomes.push(o);
          continue;
        }
        this.deps.log.error(
          { err, id: o.item.id },
          `${this.opts.name}: the database refused this outcome; the item is worked again when its lease runs out`,
        );
      }
      this.release(o.item);
    }
  }

  /** The item is done with: its claim's lease is no longer renewed for it. */
  private release(item: T): void {
    const left = (this.activeClaims.get(item.claimToken) ?? 1) - 1;
    if (left > 0) this.activeClaims.set(item.claimToken, left);
    else this.activeClaims.delete(item.claimToken);
  }

  private notifyIdle(): void {
    if (this.inFlight > 0 || this.isClaiming) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
