// Why a bulk send skips a target (DESIGN.md §7), counted in the send's answer, its dry run and
// send/get: not_found (a named contact that does not exist), duplicate (a contact named again, by
// id, email or the group: its first mention counts), and the recipient rule's refusals for the
// key's environment (complained, unsubscribed, suppressed: domain/recipients/eligibility.ts, in SQL
// as recipient_refusal()). The classification is one statement: classified() in
// db/repositories/bulk.ts. The list of reasons is the contract's SKIP_REASONS.
import { SKIP_REASONS, type SkipReason } from '@mailsvc/contract/api';

/** Every reason, zero included, so a client can read any count without a default. */
export function toSkipCounts(counts: Record<string, number>): Record<SkipReason, number> {
  const skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  for (const [reason, n] of Object.entries(counts)) {
    const key = reason.replace(/^recipient_/, '') as SkipReason;
    if (key in skipped) skipped[key] += n;
  }
  return skipped;
}
