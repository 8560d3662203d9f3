// The reputation guard of bulk sends (DESIGN.md §7): a job pauses itself when its hard bounces
// pass 5% after at least 200 delivery attempts (since it started or was last resumed), before a
// bad list costs the sending domain its reputation. The repository applies it in SQL
// (db/repositories/bulk.ts noteBulkOutcomes); an operator resumes or cancels the job
// (mailsvc admin jobs resume|cancel).
export const BULK_GUARD = { minAttempts: 200, maxHardBouncePercent: 5 } as const;
