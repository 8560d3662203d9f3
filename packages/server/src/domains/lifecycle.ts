// A sending domain's lifecycle (DESIGN.md §13), as one pure step from what a DNS check found: the
// status, the return path's status, the next check's time and the transitions to report. The
// domain checker (domain-check-worker.ts) applies it; tests drive it with a movable clock.
//
//   pending ──DKIM verified──▶ verified ──wrong twice──▶ degraded ──grace over──▶ failed
//      │                          ▲                          │                      │
//      └──72 h without──▶ failed  └────────fixed─────────────┘   POST verify: pending
//
// A check that could not ask DNS (timeout, SERVFAIL) changes nothing and comes back sooner.
import type { RecordState } from './dns-check.js';

export type DomainStatus = 'pending' | 'verified' | 'degraded' | 'failed';
export type ReturnPathStatus = 'pending' | 'verified' | 'degraded';

export interface LifecycleState {
  status: DomainStatus;
  statusSince: Date;
  badChecks: number;
  returnPathStatus: ReturnPathStatus;
  returnPathBadChecks: number;
  verifiedAt: Date | null;
}

/** What a check found, per thing the lifecycle follows. */
export interface CheckVerdict {
  /** The signing key's record. */
  dkim: RecordState;
  /** The return path's MX and SPF together: verified only when both are. */
  returnPath: RecordState;
  /** A rotation's next key, when one waits. */
  dkimNext?: RecordState;
}

export interface LifecycleStep {
  state: LifecycleState;
  /** null: not scheduled (failed). */
  nextCheckAt: Date | null;
  transition: 'verified' | 'degraded' | 'failed' | null;
  returnPathTransition: ReturnPathStatus | null;
  /** The next key verified: the signer switches to it. */
  promoteNextKey: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A pending claim is checked this long after it began, then hourly. */
const PENDING_FIRST_CHECKS = [1 * MINUTE, 5 * MINUTE, 15 * MINUTE];
export const PENDING_GIVE_UP_MS = 72 * HOUR;
export const VERIFIED_RECHECK_MS = 24 * HOUR;
/** A verified domain's first bad check is confirmed this soon (two in a row degrade it). */
export const CONFIRM_MS = 15 * MINUTE;
export const DEGRADED_RECHECK_MS = HOUR;
/** After a check that could not ask DNS. */
export const UNKNOWN_RETRY_MS = 5 * MINUTE;

/** The next of a pending claim's checks after `now`: 1, 5, 15 minutes after it began, then hourly. */
export function nextPendingCheck(since: Date, now: Date): Date {
  const elapsed = now.getTime() - since.getTime();
  const first = PENDING_FIRST_CHECKS.find((at) => at > elapsed);
  if (first !== undefined) return new Date(since.getTime() + first);
  return new Date(since.getTime() + (Math.floor(elapsed / HOUR) + 1) * HOUR);
}

const isBad = (s: RecordState) => s === 'missing' || s === 'wrong';

function stepReturnPath(
  prev: LifecycleState,
  found: RecordState,
): { status: ReturnPathStatus; bad: number; transition: ReturnPathStatus | null } {
  if (found === 'verified')
    return {
      status: 'verified',
      bad: 0,
      transition: prev.returnPathStatus === 'verified' ? null : 'verified',
    };
  if (!isBad(found) || prev.returnPathStatus === 'pending')
    return { status: prev.returnPathStatus, bad: prev.returnPathBadChecks, transition: null };
  const bad = prev.returnPathBadChecks + 1;
  if (prev.returnPathStatus === 'verified' && bad >= 2)
    return { status: 'degraded', bad, transition: 'degraded' };
  return { status: prev.returnPathStatus, bad, transition: null };
}

/** One check's step. `graceMs`: how long a degraded domain keeps sending (MAILSVC_DOMAIN_GRACE_HOURS). */
export function stepLifecycle(
  prev: LifecycleState,
  found: CheckVerdict,
  now: Date,
  graceMs: number,
): LifecycleStep {
  const rp = stepReturnPath(prev, found.returnPath);
  const base: LifecycleState = { ...prev, returnPathStatus: rp.status, returnPathBadChecks: rp.bad };
  const step = (
    state: Partial<LifecycleState>,
    nextCheckAt: Date | null,
    transition: LifecycleStep['transition'] = null,
  ): LifecycleStep => {
    const s = { ...base, ...state };
    // A rotation's next key is promoted only on a domain that signs (verified or degraded).
    const promoteNextKey =
      found.dkimNext === 'verified' && (s.status === 'verified' || s.status === 'degraded');
    const waitsForNext = found.dkimNext !== undefined && !promoteNextKey;
    const next =
      nextCheckAt && waitsForNext && nextCheckAt.getTime() > now.getTime() + HOUR
        ? new Date(now.getTime() + HOUR)
        : nextCheckAt;
    return { state: s, nextCheckAt: next, transition, returnPathTransition: rp.transition, promoteNextKey };
  };
  const since = (status: DomainStatus) => ({ status, statusSince: now, badChecks: 0 });
  const later = (ms: number) => new Date(now.getTime() + ms);

  if (found.dkim === 'unknown') {
    if (prev.status === 'failed') return step({}, null);
    return step({}, later(UNKNOWN_RETRY_MS));
  }
  const ok = found.dkim === 'verified';
  switch (prev.status) {
    case 'pending':
    case 'failed':
      if (ok) return step({ ...since('verified'), verifiedAt: now }, later(VERIFIED_RECHECK_MS), 'verified');
      if (prev.status === 'failed') return step({}, null);
      if (now.getTime() - prev.statusSince.getTime() >= PENDING_GIVE_UP_MS)
        return step(since('failed'), null, 'failed');
      return step({}, nextPendingCheck(prev.statusSince, now));
    case 'verified': {
      // a return path seen wrong once is confirmed as soon as DKIM would be (its mail bounces)
      const confirmReturnPath = rp.status === 'verified' && rp.bad === 1;
      if (ok) return step({ badChecks: 0 }, later(confirmReturnPath ? CONFIRM_MS : VERIFIED_RECHECK_MS));
      const bad = prev.badChecks + 1;
      if (bad >= 2)
        return step({ ...since('degraded'), badChecks: bad }, later(DEGRADED_RECHECK_MS), 'degraded');
      return step({ badChecks: bad }, later(CONFIRM_MS));
    }
    case 'degraded':
      if (ok) return step(since('verified'), later(VERIFIED_RECHECK_MS), 'verified');
      if (now.getTime() - prev.statusSince.getTime() >= graceMs) return step(since('failed'), null, 'failed');
      return step({ badChecks: prev.badChecks + 1 }, later(DEGRADED_RECHECK_MS));
  }
}
