// The one vocabulary of failures (DESIGN.md §5), whatever read them: a reply at delivery, a DSN, a
// plain-text bounce, a relay's or SES's event. A reading is a kind and a reason:
//   hard       the mailbox or its domain does not exist, or takes no mail: counts against the
//              recipient (cooldown, then suppression); the message is `bounced`
//   soft       refused for now (a full mailbox, a rate limit, a timeout): retried while live
//   block      refused for good for a reason that is not the address (the sender's reputation,
//              a policy, the content, authentication): the message `failed`, the recipient untouched
//   complaint  the recipient marked the mail as spam (ARF abuse, a relay's complaint)
//   ignored    not a failure (an automatic reply, a delay notice)
// docs/feedback.md has an example of each reason.

export const FAILURE_KINDS = ['hard', 'soft', 'block', 'complaint', 'ignored'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

// The reasons and their descriptions are the contract's (a message's error.reason, docs/feedback.md).
export { FAILURE_REASONS, type FailureReason } from '@mailsvc/contract/message-errors';

import type { FailureReason } from '@mailsvc/contract/message-errors';

export interface FailureReading {
  kind: FailureKind;
  reason: FailureReason;
}

/** The reasons that say the address itself is bad: hard when the sender gave up. */
export const ADDRESS_REASONS: ReadonlySet<FailureReason> = new Set([
  'user_unknown',
  'host_unknown',
  'mailbox_disabled',
  'not_accepting_mail',
]);

/** The reasons that are about the moment, not the sender: soft even when the sender gave up. */
export const TRANSIENT_REASONS: ReadonlySet<FailureReason> = new Set([
  'mailbox_full',
  'rate_limited',
  'expired',
  'network_error',
  'system_error',
]);
