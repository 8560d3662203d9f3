// The domain checker (DESIGN.md §13): sending domains whose next check is due, as a leased queue on
// the runner mail and webhooks use (queue/leased-queue-runner.ts), so every worker process may run
// it and a domain is checked by one at a time. Each check asks DNS (dns-check.ts), steps the
// lifecycle (lifecycle.ts) and writes the outcome in one transaction with its audit events and
// its domain.* webhook events; a rotation's next key is promoted here once it verifies.

import {
  claimDomainChecks,
  extendDomainCheckLeases,
  isVerifiedByAnother,
  type SendingDomainRow,
  updateSendingDomain,
} from '../db/repositories/sending-domains.js';
import type { Db } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import { generateDkimKeyPairAsync } from '../delivery/dkim.js';
import type { Deps } from '../domain/deps.js';
import { LeasedQueueRunner } from '../queue/leased-queue-runner.js';
import { checkDomainDns, type RecordCheck, type RecordState } from './dns-check.js';
import { createDnsResolver, type DnsResolver } from './dns-resolver.js';
import { auditByChecker, failingRecords, mailTeamOfDomain, reportDomainTransition } from './domain-events.js';
import { DKIM_RETIRING_DAYS, expectationOf, recordSettings, type StoredCheck } from './domain-records.js';
import { type CheckVerdict, type LifecycleState, stepLifecycle, UNKNOWN_RETRY_MS } from './lifecycle.js';

type ClaimedDomain = SendingDomainRow & { claimToken: string };

const DAY = 86_400_000;

/** Bad beats unknown beats verified: the state of several records taken together. */
export function combinedState(states: RecordState[]): RecordState {
  if (states.includes('missing')) return 'missing';
  if (states.includes('wrong')) return 'wrong';
  if (states.length === 0 || states.includes('unknown')) return 'unknown';
  return 'verified';
}

export function verdictOf(d: SendingDomainRow, records: RecordCheck[]): CheckVerdict {
  const dkimOf = (selector: string | null) =>
    records.find((r) => r.purpose === 'dkim' && r.selector === selector)?.state ?? 'unknown';
  const rp = records.filter((r) => r.purpose === 'return_path_mx' || r.purpose === 'return_path_spf');
  return {
    dkim: dkimOf(d.dkim_selector),
    returnPath: combinedState(rp.map((r) => r.state)),
    ...(d.dkim_next_selector && { dkimNext: dkimOf(d.dkim_next_selector) }),
  };
}

const stateOf = (d: SendingDomainRow): LifecycleState => ({
  status: d.status,
  statusSince: d.status_since,
  badChecks: d.bad_checks,
  returnPathStatus: d.return_path_status,
  returnPathBadChecks: d.return_path_bad_checks,
  verifiedAt: d.verified_at,
});

export interface DomainCheckOptions {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  /**
   * Whether this process is delivering mail now: checks then go one at a time, at most ten a
   * second, so a sweep of many domains takes no more than a sliver of the CPU mail needs (a
   * domain's checks are minutes or hours apart; a message's seconds count).
   */
  isMailBusy?: () => boolean;
}

/** Checks a second, at most, while mail is being delivered. */
const CHECKS_PER_SECOND_BESIDE_MAIL = 10;

export class DomainCheckWorker {
  private readonly runner: LeasedQueueRunner<ClaimedDomain>;
  private readonly resolver: DnsResolver;
  /** The turn of the next check while mail is busy (one at a time, spaced). */
  private besideMail: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Deps,
    private readonly opts: DomainCheckOptions,
  ) {
    this.resolver = createDnsResolver({
      servers: deps.config.MAILSVC_DNS_SERVERS.length > 0 ? [...deps.config.MAILSVC_DNS_SERVERS] : undefined,
      timeoutMs: deps.config.MAILSVC_DNS_TIMEOUT_MS,
      tries: 2,
    });
    this.runner = new LeasedQueueRunner(
      { clock: deps.clock, log: deps.log },
      {
        claim: (lease) => claimDomainChecks(deps.db, lease),
        extendLeases: (tokens, lockedUntil) => extendDomainCheckLeases(deps.db, tokens, lockedUntil),
        work: (d) => this.check(d),
        recordFailure: async (d, err) => {
          deps.log.error({ err, domainId: d.id }, 'domains: a check failed; trying again in 5 minutes');
          await updateSendingDomain(
            deps.db,
            d.id,
            {
              next_check_at: new Date(deps.clock.now().getTime() + UNKNOWN_RETRY_MS),
              check_locked_until: null,
              check_claim_token: null,
            },
            d.claimToken,
          );
        },
      },
      { concurrency: opts.concurrency, leaseMs: opts.leaseMs, pollMs: opts.pollMs, name: 'domains' },
    );
  }

  start(): void {
    this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** Tests with a movable clock: check every domain due now. */
  drain(): Promise<number> {
    return this.runner.drain();
  }

  /** Waits for a turn while mail is busy: one check at a time, CHECKS_PER_SECOND_BESIDE_MAIL. */
  private async giveWayToMail(): Promise<() => void> {
    if (!this.opts.isMailBusy?.()) return () => {};
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const before = this.besideMail;
    this.besideMail = before.then(() => mine);
    await before;
    return () => setTimeout(done, 1000 / CHECKS_PER_SECOND_BESIDE_MAIL).unref();
  }

  private async check(d: ClaimedDomain): Promise<void> {
    const release = await this.giveWayToMail();
    try {
      await this.checkNow(d);
    } finally {
      release();
    }
  }

  private async checkNow(d: ClaimedDomain): Promise<void> {
    const { deps } = this;
    const settings = recordSettings(deps.config);
    const found = await checkDomainDns(this.resolver, expectationOf(d, settings, deps.clock.now()));
    const now = deps.clock.now();
    const reported = await inTransaction(deps.db, async (trx) => {
      // Claims on one name are stepped one at a time (two cannot both become its verified owner),
      // every claim's row locked in one order: two checks of the name wait for each other rather
      // than deadlock (CI on PostgreSQL at 73b22e9, when each locked its own row first).
      await trx
        .selectFrom('sending_domains')
        .select('id')
        .where('domain', '=', d.domain)
        .orderBy('id')
        .forUpdate()
        .execute();
      const claimed = await trx
        .selectFrom('sending_domains')
        .selectAll()
        .where('id', '=', d.id)
        .where('check_claim_token', '=', d.claimToken)
        .forUpdate()
        .executeTakeFirst();
      if (!claimed) return undefined; // deleted, or re-verified meanwhile: the newer check decides
      const records = await withOwnership(trx, claimed, found.records);
      const verdict = verdictOf(claimed, records);
      const step = stepLifecycle(
        stateOf(claimed),
        verdict,
        now,
        deps.config.MAILSVC_DOMAIN_GRACE_HOURS * 3_600_000,
      );
      const lastCheck: StoredCheck = { records, dmarc: found.dmarc };
      const after = await updateSendingDomain(trx, claimed.id, {
        status: step.state.status,
        status_since: step.state.statusSince,
        bad_checks: step.state.badChecks,
        return_path_status: step.state.returnPathStatus,
        return_path_bad_checks: step.state.returnPathBadChecks,
        verified_at: step.state.verifiedAt,
        last_check: JSON.stringify(lastCheck),
        last_checked_at: now,
        next_check_at: step.nextCheckAt,
        check_locked_until: null,
        check_claim_token: null,
        updated_at: now,
        ...(step.promoteNextKey ? promotedKeys(claimed, now) : retiredKeyCleared(claimed, now)),
      });
      await reportDomainTransition(trx, claimed, after!, step, records, now);
      return { domain: after!, transition: step.transition, failing: failingRecords(records, claimed) };
    });
    if (reported?.transition === 'degraded' || reported?.transition === 'failed')
      await mailTeamOfDomain(deps, reported.domain, reported.transition, reported.failing);
    await this.startScheduledRotation(d, now);
  }

  /** MAILSVC_DKIM_ROTATE_DAYS: a verified domain's key that old gets a next key to publish. */
  private async startScheduledRotation(d: ClaimedDomain, now: Date): Promise<void> {
    const days = this.deps.config.MAILSVC_DKIM_ROTATE_DAYS;
    if (days === 0 || d.dkim_next_selector || d.status !== 'verified' || !d.dkim_created_at) return;
    if (now.getTime() - d.dkim_created_at.getTime() < days * DAY) return;
    const pair = await generateDkimKeyPairAsync(now, [d.dkim_selector, d.dkim_old_selector]);
    await inTransaction(this.deps.db, async (trx) => {
      const started = await trx
        .updateTable('sending_domains')
        .set({
          dkim_next_selector: pair.selector,
          dkim_next_private_key: pair.privateKeyPem,
          dkim_next_public_key: pair.publicKeyPem,
          next_check_at: new Date(now.getTime() + 60_000),
          updated_at: now,
        })
        .where('id', '=', d.id)
        .where('dkim_next_selector', 'is', null) // POST rotate-dkim may have started one meanwhile
        .where('status', '=', 'verified')
        .returning('id')
        .executeTakeFirst();
      if (started)
        await auditByChecker(
          trx,
          d,
          'domain.dkim_rotation_started',
          { selector: pair.selector, scheduled: true },
          now,
        );
    });
  }
}

/**
 * One verified owner per domain: while another tenant has the name verified, this claim's DKIM
 * record counts as wrong (its key is not the one published, or both are and the other came first).
 */
async function withOwnership(db: Db, d: SendingDomainRow, records: RecordCheck[]): Promise<RecordCheck[]> {
  if (d.status === 'verified' || d.status === 'degraded') return records;
  if (!(await isVerifiedByAnother(db, d.domain, d.tenant_id))) return records;
  return records.map((r) =>
    r.purpose === 'dkim' && r.selector === d.dkim_selector
      ? {
          ...r,
          state: 'wrong',
          problems: [
            ...r.problems,
            {
              code: 'domain_claimed',
              message: `Another tenant has verified ${d.domain}; one tenant at a time may send from a domain.`,
            },
          ],
        }
      : r,
  );
}

/** The next key becomes the signing key; the replaced one keeps verifying for 7 days. */
function promotedKeys(d: SendingDomainRow, now: Date) {
  return {
    dkim_old_selector: d.dkim_selector,
    dkim_old_public_key: d.dkim_public_key,
    dkim_old_until: new Date(now.getTime() + DKIM_RETIRING_DAYS * DAY),
    dkim_selector: d.dkim_next_selector,
    dkim_private_key: d.dkim_next_private_key,
    dkim_public_key: d.dkim_next_public_key,
    dkim_created_at: now,
    dkim_next_selector: null,
    dkim_next_private_key: null,
    dkim_next_public_key: null,
  };
}

/** A retiring key past its 7 days is forgotten (its record is safe to remove). */
function retiredKeyCleared(d: SendingDomainRow, now: Date) {
  return d.dkim_old_until && d.dkim_old_until <= now
    ? { dkim_old_selector: null, dkim_old_public_key: null, dkim_old_until: null }
    : {};
}
