// The webhook runner (DESIGN.md §11): webhook_deliveries as a leased queue on the one runner mail
// uses (queue/leased-queue-runner.ts), with its own concurrency, so a slow endpoint never holds a
// mail slot and mail never holds a webhook one. Each delivery is one signed POST (signing.ts) over
// the SSRF-safe egress (egress.ts); the attempts that ended are recorded with the runner's next
// claim, in one statement (a delivery's slot at its endpoint is free once its attempt is
// recorded, so a freed slot is filled in one round trip); a failure is retried on the spec's
// schedule (retry-schedule.ts); an endpoint that answered 410 or failed for 5 days is disabled and
// audited.
import { findEndpoint } from '../db/repositories/webhook-endpoints.js';
import {
  type ClaimedDelivery,
  type DisabledEndpoint,
  extendDeliveryLeases,
  recordAndClaimDeliveries,
  type WebhookAttemptRecord,
} from '../db/repositories/webhook-queue.js';
import { notifyTeam } from '../domain/console/notify-team.js';
import type { Deps } from '../domain/deps.js';
import { newId } from '../ids.js';
import { type Lease, LeasedQueueRunner } from '../queue/leased-queue-runner.js';
import { postWebhook, type WebhookResponse } from './egress.js';
import { MailFirst } from './mail-first.js';
import { webhookPayload } from './payload.js';
import { DISABLE_AFTER_FAILING_DAYS, nextWebhookAttempt } from './retry-schedule.js';
import { signWebhook } from './signing.js';

export interface WebhookWorkerOptions {
  concurrency: number;
  perEndpoint: number;
  leaseMs: number;
  pollMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Whether this process has a backlog of mail (delivery/worker.ts `backlogged`): see mail-first.ts. */
  isMailBacklogged?: () => boolean;
  /** Default MAIL_FIRST_MS (mail-first.ts). */
  mailFirstMs?: number;
}

/** Why an answer is not a success, for the attempt log. */
function failureOf(r: WebhookResponse): string | null {
  if (r.error) return `${r.error.kind}: ${r.error.message}`;
  if (r.status === undefined) return 'no answer';
  if (r.status >= 200 && r.status < 300) return null;
  if (r.status >= 300 && r.status < 400)
    return `redirect to ${r.location ?? '(no Location)'}: not followed (give the final URL)`;
  return `answered ${r.status}${r.status === 410 ? ' Gone: the endpoint is disabled' : ''}`;
}

export class WebhookWorker {
  private readonly runner: LeasedQueueRunner<ClaimedDelivery, WebhookAttemptRecord>;
  private readonly mailFirst: MailFirst | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly opts: WebhookWorkerOptions,
  ) {
    this.mailFirst = opts.isMailBacklogged
      ? new MailFirst(
          opts.isMailBacklogged,
          () => {
            if (this.runner.running) this.runner.nudge();
          },
          opts.mailFirstMs,
        )
      : undefined;
    const claimRecording = async (lease: Lease, records: WebhookAttemptRecord[]) => {
      const { claimed, disabled } = await recordAndClaimDeliveries(
        deps.db,
        records,
        lease,
        opts.perEndpoint,
        DISABLE_AFTER_FAILING_DAYS,
      );
      for (const e of disabled) {
        deps.log.warn({ endpointId: e.endpointId, reason: e.reason }, 'webhooks: endpoint disabled');
        void mailTeamOfDisabled(deps, e); // after the record: never holds the next claim
      }
      return claimed;
    };
    this.runner = new LeasedQueueRunner(
      { clock: deps.clock, log: deps.log },
      {
        claim: (lease) => claimRecording(lease, []),
        claimRecording,
        extendLeases: (tokens, lockedUntil) => extendDeliveryLeases(deps.db, tokens, lockedUntil),
        work: (d) => this.deliver(d),
        // A throw before the request (building or signing the payload) is recorded as a failed
        // attempt and retried on the schedule, so it neither loops at every lease nor blocks the
        // subject's later events past the schedule's end.
        recordFailure: async (d, err) => {
          const now = deps.clock.now();
          return {
            deliveryId: d.id,
            claimToken: d.claimToken,
            attemptId: newId('wha', now.getTime()),
            outcome: 'failed',
            statusCode: null,
            responseBody: '',
            latencyMs: 0,
            error: `internal error of mailsvc: ${err instanceof Error ? err.message : String(err)}`.slice(
              0,
              500,
            ),
            nextAttemptAt: nextWebhookAttempt(now, d.attempts + 1, undefined),
            gone: false,
            now,
          };
        },
      },
      {
        concurrency: () => this.mailFirst?.slots(opts.concurrency) ?? opts.concurrency,
        leaseMs: opts.leaseMs,
        pollMs: opts.pollMs,
        name: 'webhooks',
        // a claim holds back what is over an endpoint's cap or waits behind an earlier event
        shortClaimMeansEmpty: false,
      },
    );
  }

  start(): void {
    this.runner.start();
  }

  /** Stops claiming and waits for the attempts in flight (each ends within the request timeout). */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** Tests with a movable clock: claim once, attempt everything claimed. */
  runOnce(): Promise<number> {
    return this.runner.runOnce();
  }

  /** Tests: run until nothing is due. */
  drain(): Promise<number> {
    return this.runner.drain();
  }

  /** One attempt; its record, for the runner's next claim. */
  private async deliver(d: ClaimedDelivery): Promise<WebhookAttemptRecord> {
    const at = this.deps.clock.now();
    const body = JSON.stringify(webhookPayload({ type: d.type, data: d.data, createdAt: d.occurredAt }));
    const headers = {
      ...signWebhook(d.eventId, at, body, d),
      'user-agent': 'mailsvc-webhooks/1',
    };
    const r = await postWebhook({
      url: d.url,
      headers,
      body,
      timeoutMs: this.opts.timeoutMs,
      allowPrivate: this.opts.allowPrivate,
    });
    const now = this.deps.clock.now();
    const ok = r.status !== undefined && r.status >= 200 && r.status < 300 && !r.error;
    const gone = r.status === 410;
    const attempt = d.attempts + 1;
    const outcome = ok ? 'succeeded' : 'failed';
    this.deps.metrics.webhookAttempts.inc({ outcome: ok ? 'succeeded' : gone ? 'gone' : 'failed' });
    return {
      deliveryId: d.id,
      claimToken: d.claimToken,
      attemptId: newId('wha', now.getTime()),
      outcome,
      statusCode: r.status ?? null,
      responseBody: r.body,
      latencyMs: r.latencyMs,
      error: ok ? null : failureOf(r),
      nextAttemptAt: ok || gone ? null : nextWebhookAttempt(now, attempt, r.retryAfterSeconds),
      gone,
      now,
    };
  }
}

/** The tenant's owners and admins learn that an endpoint was disabled (DESIGN.md §11). */
async function mailTeamOfDisabled(deps: Deps, e: DisabledEndpoint): Promise<void> {
  const endpoint = await findEndpoint(deps.db, e.environmentId, e.endpointId).catch(() => undefined);
  // Its origin and path only: a query often carries the receiver's token.
  const url = endpoint ? urlWithoutQuery(endpoint.url) : e.endpointId;
  await notifyTeam(deps, e.tenantId, {
    subject: 'A webhook endpoint was disabled',
    intro:
      e.reason === 'gone'
        ? 'A webhook endpoint answered 410 Gone, so it was disabled: no more events are sent to it until it is enabled again.'
        : 'Every delivery to a webhook endpoint failed for 5 days, so it was disabled: no more events are sent to it until it is enabled again. Its events are kept; replay them once it answers.',
    item: `${url} (${e.endpointId})`,
    problem: e.reason === 'gone' ? 'answered 410 Gone' : 'every delivery failed for 5 days',
    since: endpoint?.updated_at ?? deps.clock.now(),
    page: '/webhooks',
    environmentId: e.environmentId,
  });
}

function urlWithoutQuery(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an endpoint)';
  }
}
