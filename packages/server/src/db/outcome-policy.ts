// The shapes of the policies the outcome-recording statements apply (a hard bounce's cooldown and
// suppression, a bulk job's reputation guard). The values are the domain's
// (domain/recipients/bounce-policy.ts, domain/bulk/reputation-guard.ts, gathered in
// domain/outcome-policy.ts) and are passed in by the caller: the repositories hold no policy.

/** DESIGN.md §5: the cooldown after a hard bounce, its doubling, and the streak that suppresses. */
export interface BouncePolicy {
  readonly cooldownHours: number;
  readonly streakWindowDays: number;
  readonly suppressAfterBounces: number;
  readonly suppressionDays: number;
  /** The doubling stops here: no overflow, and suppression comes first. */
  readonly maxDoublings: number;
}

/** DESIGN.md §7: a bulk job pauses when its hard bounces pass a share after enough attempts. */
export interface BulkGuardPolicy {
  readonly minAttempts: number;
  readonly maxHardBouncePercent: number;
}

export interface OutcomePolicy {
  readonly bounce: BouncePolicy;
  readonly bulkGuard: BulkGuardPolicy;
}
