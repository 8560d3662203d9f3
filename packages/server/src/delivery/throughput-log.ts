// One log line every 10 s while the worker has work: how many attempts ended in each status
// since the last line, the rate, and what is in flight. Quiet when there is nothing to say.
import type { Logger } from 'pino';

export const THROUGHPUT_LOG_MS = 10_000;

export class ThroughputLog {
  private counts: Record<string, number> = {};
  private since = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly inFlight: () => number,
    private readonly everyMs = THROUGHPUT_LOG_MS,
  ) {}

  count(status: string): void {
    this.counts[status] = (this.counts[status] ?? 0) + 1;
  }

  start(): void {
    this.since = performance.now();
    this.timer = setInterval(() => this.flush(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }

  /** Logs the line when anything ended or is in flight; returns whether it did. */
  flush(): boolean {
    const now = performance.now();
    const seconds = (now - this.since) / 1000;
    const attempts = Object.values(this.counts).reduce((a, b) => a + b, 0);
    const inFlight = this.inFlight();
    const counts = this.counts;
    this.counts = {};
    this.since = now;
    if (attempts === 0 && inFlight === 0) return false;
    const perSecond = seconds > 0 ? Math.round((attempts / seconds) * 10) / 10 : 0;
    this.log.info(
      { attempts, perSecond, inFlight, seconds: Math.round(seconds * 10) / 10, ...counts },
      `delivery: ${attempts} attempts in ${seconds.toFixed(1)} s (${perSecond}/s), ${inFlight} in flight`,
    );
    return true;
  }
}
