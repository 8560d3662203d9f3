// The bounce policy (DESIGN.md §5): a hard bounce starts a 24 h cooldown, doubled for each further
// bounce within 30 days of the previous one; the third in such a streak suppresses the address for
// 30 days after it. Which failures count as hard bounces: domain/failures/classify-failure.ts. The
// statement that applies it: recordHardBounce in db/repositories/recipients.ts (given this policy).
import type { BouncePolicy } from '../../db/outcome-policy.js';

export const BOUNCE_POLICY = {
  cooldownHours: 24,
  streakWindowDays: 30,
  suppressAfterBounces: 3,
  suppressionDays: 30,
  /** The doubling stops here (24 h × 2¹⁰ ≈ 2.8 years): no overflow, and suppression comes first. */
  maxDoublings: 10,
} as const satisfies BouncePolicy;
