// Mail first (docs/webhooks.md, Operating): while this process has a backlog of mail, the webhook
// runner starts no delivery, so a burst of mail is not slowed by its own events. The pauses draw on
// a budget (MAIL_FIRST_MS by default) that time outside a pause refills: events are held back never
// more than that at a stretch, and at most half the time however the backlog comes and goes.

/** How long a backlog of mail holds webhook deliveries back, at most. */
export const MAIL_FIRST_MS = 30_000;
/** How often a pause looks whether it is over (the runner's own poll may be a minute). */
const PAUSE_RECHECK_MS = 250;

export class MailFirst {
  /** Whether the runner was last told it has no slots. */
  private isPaused = false;
  /** Milliseconds of pause left: spent while paused, refilled as long outside, up to `mostMs`. */
  private budgetMs: number;
  /** When the budget was last brought up to date (performance.now()). */
  private budgetAt = 0;
  private recheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly isMailBacklogged: () => boolean,
    /** Called while paused, every PAUSE_RECHECK_MS: the runner looks at its slots again. */
    private readonly lookAgain: () => void,
    private readonly mostMs = MAIL_FIRST_MS,
  ) {
    this.budgetMs = mostMs;
  }

  /** The runner's slots now: none while paused for a mail backlog (and budget is left), else all. */
  slots(all: number): number {
    const now = performance.now();
    const elapsed = now - this.budgetAt;
    this.budgetAt = now;
    this.budgetMs = this.isPaused ? this.budgetMs - elapsed : Math.min(this.mostMs, this.budgetMs + elapsed);
    this.isPaused = this.isMailBacklogged() && this.budgetMs > 0;
    if (!this.isPaused) return all;
    this.recheck ??= setTimeout(() => {
      this.recheck = undefined;
      this.lookAgain();
    }, PAUSE_RECHECK_MS).unref();
    return 0;
  }
}
