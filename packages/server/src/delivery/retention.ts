// The retention sweep, run by every worker process: at start and then every interval, deletes
// message metadata older than MAILSVC_RETENTION_DAYS and expired idempotency records, in batches,
// a bounded number per run so a large backlog is worked off over several runs.
import { isDatabaseUnavailable } from '../db/errors.js';
import {
  deleteConsoleRowsBefore,
  deleteExpiredIdempotencyKeys,
  deleteExpiredIntakeIds,
  deleteJobsBefore,
  deleteMessagesBefore,
  deleteWebhookRowsBefore,
  dropFinishedJobData,
  settleStoppedJobMessages,
  webhookRowsKeptFrom,
} from '../db/repositories/retention.js';
import type { Deps } from '../domain/deps.js';

export const RETENTION_BATCH = 500;
const MAX_BATCHES_PER_RUN = 20;
const DAY_MS = 86_400_000;

export interface SweepResult {
  messages: number;
  idempotencyKeys: number;
  /** Relay event ids past their replay window. */
  intakeIds: number;
  /** Messages of canceled or paused bulk sends settled (canceled, or expired while paused). */
  stoppedJobMessages: number;
  /** Bulk sends whose template data was dropped (none of their messages waits any more). */
  jobData: number;
  /** Bulk sends past retention whose messages are gone. */
  jobs: number;
  /** Webhook attempts, finished deliveries and events past their 30 days (or the retention, if shorter). */
  webhookRows: number;
  /** The console's spent sign-in codes, expired credentials and long-ended sessions. */
  consoleRows: number;
}

/** One run: batches until one comes back short or the run's allowance is spent. */
export async function sweepOnce(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<SweepResult> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - deps.config.MAILSVC_RETENTION_DAYS * DAY_MS);
  const result: SweepResult = {
    messages: 0,
    idempotencyKeys: 0,
    intakeIds: 0,
    stoppedJobMessages: 0,
    jobData: 0,
    jobs: 0,
    webhookRows: 0,
    consoleRows: 0,
  };
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await deleteMessagesBefore(deps.db, before, RETENTION_BATCH);
    result.messages += n;
    if (n < RETENTION_BATCH) break;
  }
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await deleteExpiredIdempotencyKeys(deps.db, now, RETENTION_BATCH);
    result.idempotencyKeys += n;
    if (n < RETENTION_BATCH) break;
  }
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await deleteExpiredIntakeIds(deps.db, now, RETENTION_BATCH);
    result.intakeIds += n;
    if (n < RETENTION_BATCH) break;
  }
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await settleStoppedJobMessages(deps.db, now, RETENTION_BATCH);
    result.stoppedJobMessages += n;
    if (n < RETENTION_BATCH) break;
  }
  result.jobData = await dropFinishedJobData(deps.db, RETENTION_BATCH);
  result.jobs = await deleteJobsBefore(deps.db, before, RETENTION_BATCH);
  const webhookBefore = webhookRowsKeptFrom(now, deps.config.MAILSVC_RETENTION_DAYS);
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await deleteWebhookRowsBefore(deps.db, webhookBefore, RETENTION_BATCH);
    result.webhookRows += n;
    if (n < RETENTION_BATCH) break;
  }
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await deleteConsoleRowsBefore(deps.db, now, RETENTION_BATCH);
    result.consoleRows += n;
    if (n < RETENTION_BATCH) break;
  }
  return result;
}

export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'clock' | 'config' | 'log'>,
    private readonly intervalMs = 10 * 60_000,
  ) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = sweepOnce(this.deps)
      .then((r) => {
        if (r.messages + r.idempotencyKeys + r.intakeIds + r.stoppedJobMessages + r.jobData + r.jobs > 0)
          this.deps.log.info(r, 'retention: deleted old records');
      })
      .catch((err) =>
        isDatabaseUnavailable(err)
          ? this.deps.log.warn({ err }, 'retention: database unavailable; trying at the next run')
          : this.deps.log.error({ err }, 'retention sweep failed'),
      )
      .finally(() => {
        this.running = undefined;
      });
  }
}
