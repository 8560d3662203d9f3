// The delivery worker: the messages table as a leased queue (queue/leased-queue-runner.ts claims
// batches, keeps their leases and hands each message to deliverMessage()). What is particular to
// mail lives here: outcomes recorded in batches, a bounce recorded with its recipient, the DKIM
// key cache, patience while the database is unreachable, the throughput log.
import { Batcher } from '../db/batcher.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import {
  type AttemptRecord,
  type ClaimedMessage,
  claimMessages,
  extendLeases,
  findDkimKey,
  recordAttempt,
  recordAttempts,
} from '../db/repositories/queue.js';
import type { Deps } from '../domain/deps.js';
import { OUTCOME_POLICY } from '../domain/outcome-policy.js';
import { LeasedQueueRunner } from '../queue/leased-queue-runner.js';
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
  private readonly runner: LeasedQueueRunner<ClaimedMessage>;
  private readonly throughput: ThroughputLog;
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
    this.runner = new LeasedQueueRunner(
      { clock: deps.clock, log: deps.log, subscribe: (onNews) => deps.queue.subscribe(onNews) },
      {
        claim: async (lease) => {
          const batch = await claimMessages(deps.db, lease);
          if (batch.length > 0) deps.metrics.batchSize.observe({ kind: 'claim' }, batch.length);
          return batch;
        },
        extendLeases: (tokens, lockedUntil) => extendLeases(deps.db, tokens, lockedUntil),
        work: async (m) => this.throughput.count(await deliverMessage(this.delivery, m)),
        // No recordFailure: deliverMessage records a step's throw itself (an error event and a
        // deferral), so what reaches the runner is a throw while recording the outcome. The
        // message may have gone out already; it waits out its lease, as a crashed worker's would.
      },
      { ...opts, name: 'delivery' },
    );
    this.throughput = new ThroughputLog(deps.log, () => this.runner.busy);
    this.delivery = {
      ...deps,
      transport,
      dkimKeyFor: (t, d) => this.dkimKeyFor(t, d),
      // The message went out (or failed) already: while the database is unreachable, keep the
      // outcome and retry recording it, rather than let the lease run out and send it again.
      // The claim stays in flight meanwhile, so the heartbeat keeps its lease once it can.
      record: (r) =>
        this.whileUnavailable(() => (r.bounce ? recordAttempt(deps.db, r, OUTCOME_POLICY) : records.call(r))),
    };
  }

  start(): void {
    if (this.runner.running) return;
    this.runner.start();
    this.throughput.start();
  }

  /**
   * Stops claiming and waits for the messages in flight, renewing their leases meanwhile (else a
   * slow relay would let another worker send them again).
   */
  async stop(): Promise<void> {
    await this.runner.stop();
    this.throughput.stop();
  }

  /** Tests with a movable clock: claim once, attempt everything claimed; the number attempted. */
  runOnce(): Promise<number> {
    return this.runner.runOnce();
  }

  /** Tests: run until nothing is due. */
  drain(): Promise<number> {
    return this.runner.drain();
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
        if (!this.runner.running) {
          stopDeadline ??= Date.now() + this.opts.leaseMs;
          if (Date.now() >= stopDeadline) throw err;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /** Messages being delivered now: the domain checker gives way while there are any. */
  get busy(): boolean {
    return this.runner.busySlots > 0;
  }

  /**
   * Whether mail keeps this process busy: half its slots or more in flight. The webhook runner then
   * waits (within its bounds: webhooks/webhook-worker.ts), so the mail comes first. A slow relay
   * that keeps half the slots busy with little mail counts too; the webhook runner's bounds (a
   * pause of at most 30 s, at most half the time) keep events moving then. (A signal from the
   * claims, "the last one filled every slot it asked for", was tried: in a burst it came and went
   * every few tens of milliseconds and let a thousand deliveries through per bench round.)
   */
  get backlogged(): boolean {
    return this.runner.busySlots >= Math.ceil(this.opts.concurrency / 2);
  }

  private async dkimKeyFor(tenantId: string, domain: string): Promise<DkimKey | null> {
    const now = Date.now();
    const cacheKey = `${tenantId} ${domain}`;
    const hit = this.dkimCache.get(cacheKey);
    if (hit && hit.until > now) return hit.key;
    const row = await this.whileUnavailable(() => findDkimKey(this.deps.db, tenantId, domain));
    const key =
      row?.privateKeyPem && row.selector
        ? parseDkimKey(row.domain, row.selector, row.privateKeyPem, row.returnPathStatus === 'verified')
        : null;
    this.dkimCache.set(cacheKey, { key, until: now + DKIM_CACHE_MS });
    return key;
  }
}
