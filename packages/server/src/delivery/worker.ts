// The delivery loop: claim a batch, attempt each message concurrently, claim again as slots free
// up. Woken by the queue signal (new accepts) and by a fallback poll (retries falling due,
// leases of crashed workers running out).
import { randomBytes } from 'node:crypto';
import { Batcher } from '../db/batcher.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import {
  type AttemptRecord,
  claimMessages,
  extendLeases,
  findDkimKey,
  recordAttempt,
  recordAttempts,
} from '../db/repositories/queue.js';
import type { Deps } from '../domain/deps.js';
import { OUTCOME_POLICY } from '../domain/outcome-policy.js';
import { type DeliveryDeps, deliverMessage } from './deliver-message.js';
import { type DkimKey, parseDkimKey } from './dkim.js';
import { ThroughputLog } from './throughput-log.js';
import type { Transport } from './transports/transport.js';

export interface WorkerOptions {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
}

const DKIM_CACHE_MS = 60_000;

export class DeliveryWorker {
  private readonly delivery: DeliveryDeps;
  private inFlight = 0;
  private isRunning = false;
  private isClaiming = false;
  private isWakePending = false;
  /** False after a claim found fewer messages than it asked for: only a signal or poll re-checks. */
  private mayHaveMore = true;
  /** Bumped by every signal and poll: a claim that raced a signal must not clear mayHaveMore. */
  private newsSeq = 0;
  private poll: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly throughput: ThroughputLog;
  /** Claim token → messages of that claim still being attempted; their leases are kept alive. */
  private readonly activeClaims = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly dkimCache = new Map<string, { key: DkimKey | null; until: number }>();
  /** Logged once per outage. */
  private isDatabaseDown = false;

  constructor(
    private readonly deps: Deps,
    transport: Transport,
    private readonly opts: WorkerOptions,
  ) {
    // Outcomes are recorded in batches (one statement for many messages); a bounce, which also
    // updates the recipient, is recorded on its own. One batch at a time: while it commits, the
    // next gathers (10 outcomes a statement at 2,000 messages/s rather than 5 with two in flight,
    // and a third less database time a message; bench/RESULTS.md, delivery).
    const records = new Batcher<AttemptRecord, boolean>((rs) => recordAttempts(deps.db, rs, OUTCOME_POLICY), {
      maxConcurrent: 1,
      maxBatch: 100,
    });
    this.throughput = new ThroughputLog(deps.log, () => this.inFlight);
    this.delivery = {
      ...deps,
      transport,
      dkimKeyFor: (d) => this.dkimKeyFor(d),
      // The message went out (or failed) already: while the database is unreachable, keep the
      // outcome and retry recording it, rather than let the lease run out and send it again.
      // The claim stays in flight meanwhile, so the heartbeat keeps its lease once it can.
      record: (r) =>
        this.whileUnavailable(() => (r.bounce ? recordAttempt(deps.db, r, OUTCOME_POLICY) : records.call(r))),
    };
  }

  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    this.unsubscribe = this.deps.queue.subscribe(() => this.wake(true));
    this.poll = setInterval(() => this.wake(true), this.opts.pollMs);
    this.throughput.start();
    // A slow relay must not let the lease of a message still queued in this process run out
    // (another worker would send it again): renew the leases of every claim in flight.
    this.heartbeat = setInterval(
      () => {
        const now = this.deps.clock.now();
        extendLeases(
          this.deps.db,
          [...this.activeClaims.keys()],
          new Date(now.getTime() + this.opts.leaseMs),
        ).catch((err) =>
          isDatabaseUnavailable(err)
            ? this.deps.log.warn({ err }, 'database unavailable; renewing leases at the next heartbeat')
            : this.deps.log.error({ err }, 'renewing leases failed'),
        );
      },
      Math.max(250, Math.floor(this.opts.leaseMs / 3)),
    );
    this.wake(true);
  }

  /**
   * Stops claiming and waits for the messages in flight, renewing their leases meanwhile (else a
   * slow relay would let another worker send them again).
   */
  async stop(): Promise<void> {
    this.isRunning = false;
    clearInterval(this.poll);
    this.unsubscribe?.();
    while (this.inFlight > 0 || this.isClaiming) await new Promise<void>((r) => this.idleWaiters.push(r));
    clearInterval(this.heartbeat);
    this.throughput.stop();
  }

  /** Tests with a movable clock: claim once, attempt everything claimed; the number attempted. */
  async runOnce(): Promise<number> {
    const batch = await this.claim(this.opts.concurrency);
    await Promise.all(batch.map((m) => this.attempt(m)));
    return batch.length;
  }

  /** Tests: run until nothing is due. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  private wake(isNews: boolean): void {
    if (isNews) {
      this.newsSeq++;
      this.mayHaveMore = true;
    }
    if (!this.isRunning || !this.mayHaveMore) return;
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
        const free = this.opts.concurrency - this.inFlight;
        // Claim in batches: wait for a quarter of the slots unless the worker is idle.
        if (free <= 0 || (this.inFlight > 0 && free < Math.ceil(this.opts.concurrency / 4))) break;
        const seq = this.newsSeq;
        const batch = await this.claim(free);
        if (batch.length < free && seq === this.newsSeq) this.mayHaveMore = false;
        for (const m of batch) {
          this.inFlight++;
          void this.attempt(m).finally(() => {
            this.inFlight--;
            this.notifyIdle();
            this.wake(false);
          });
        }
      } while (this.isWakePending && this.isRunning && this.mayHaveMore);
    } catch (err) {
      if (isDatabaseUnavailable(err))
        this.deps.log.warn({ err }, 'database unavailable; claiming again at the next poll');
      else this.deps.log.error({ err }, 'claiming messages failed; retrying at the next poll');
    } finally {
      this.isClaiming = false;
      this.notifyIdle();
    }
  }

  private async claim(limit: number) {
    const now = this.deps.clock.now();
    const claimToken = randomBytes(12).toString('base64url');
    const batch = await claimMessages(this.deps.db, {
      now,
      limit,
      lockedUntil: new Date(now.getTime() + this.opts.leaseMs),
      claimToken,
    });
    if (batch.length > 0) {
      this.activeClaims.set(claimToken, batch.length);
      this.deps.metrics.batchSize.observe({ kind: 'claim' }, batch.length);
    }
    return batch;
  }

  private async attempt(m: Parameters<typeof deliverMessage>[1]): Promise<void> {
    try {
      const status = await deliverMessage(this.delivery, m);
      this.throughput.count(status);
    } catch (err) {
      // The lease runs out and another attempt follows; nothing is lost.
      this.deps.log.error({ err, messageId: m.id }, 'delivery attempt failed unexpectedly');
    } finally {
      const left = (this.activeClaims.get(m.claimToken) ?? 1) - 1;
      if (left > 0) this.activeClaims.set(m.claimToken, left);
      else this.activeClaims.delete(m.claimToken);
    }
  }

  /**
   * Runs `fn`, retrying every 0.25–1 s while the database is unreachable — kept short: a worker
   * whose slots all wait here claims nothing, so its pace after an outage is this wait. Once the
   * worker is stopping it gives up after one lease: by then another worker may own the message
   * anyway, and a stop must end. One log line per outage, not one per message and retry.
   */
  private async whileUnavailable<T>(fn: () => Promise<T>): Promise<T> {
    let stopDeadline: number | undefined;
    for (let wait = 250; ; wait = Math.min(wait * 2, 1000)) {
      try {
        const result = await fn();
        if (this.isDatabaseDown) {
          this.isDatabaseDown = false;
          this.deps.log.info('database reachable again; recording outcomes');
        }
        return result;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err;
        if (!this.isDatabaseDown) {
          this.isDatabaseDown = true;
          this.deps.log.warn({ err }, 'database unavailable; keeping outcomes to record when it is back');
        }
        if (!this.isRunning) {
          stopDeadline ??= Date.now() + this.opts.leaseMs;
          if (Date.now() >= stopDeadline) throw err;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private notifyIdle(): void {
    if (this.inFlight > 0 || this.isClaiming) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private async dkimKeyFor(domain: string): Promise<DkimKey | null> {
    const now = Date.now();
    const hit = this.dkimCache.get(domain);
    if (hit && hit.until > now) return hit.key;
    const row = await this.whileUnavailable(() => findDkimKey(this.deps.db, domain));
    const key =
      row?.privateKeyPem && row.selector
        ? parseDkimKey(row.domain, row.selector, row.privateKeyPem, row.returnPathStatus === 'verified')
        : null;
    this.dkimCache.set(domain, { key, until: now + DKIM_CACHE_MS });
    return key;
  }
}
