// The reputation guard of bulk sends (DESIGN.md §7): a job pauses itself when its hard bounces
// pass 5% after at least 200 delivery attempts (since it started or was last resumed), before a
// bad list costs the sending domain its reputation. The statement that applies it: noteBulkOutcomes
// in db/repositories/bulk.ts (given this policy); an operator resumes or cancels the job
// (mailsvc admin jobs resume|cancel, domain/admin/jobs.ts).
import type { BulkGuardPolicy } from '../../db/outcome-policy.js';

export const BULK_GUARD = { minAttempts: 200, maxHardBouncePercent: 5 } as const satisfies BulkGuardPolicy;
