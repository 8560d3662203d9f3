// Whether a recipient may be sent a template of a category now, and the state the status endpoint
// reports (DESIGN.md §5): complained refuses everything; unsubscribed refuses notifications; a
// running cooldown or suppression refuses everything. The rule needs the recipient's row, so it
// lives once, in SQL: db/functions/recipient_refusal.sql (recipient_refusal(), contact_status(),
// is_unsubscribed(), is_held_back()), applied by the accept (accept_messages.sql), by bulk sends,
// by the worker's claim before every attempt (claim_messages.sql) and by every read that reports
// a state. test/eligibility.test.ts is its table of recipient states × categories → verdict.
// This file turns the verdicts into the API's words.
import type { ContactStatus } from '@mailsvc/contract/api';
import type { RecipientRefusal } from '../../db/recipient-state.js';
import { ApiError } from '../../errors.js';

export type RecipientStateName = 'clear' | 'unsubscribed' | 'cooldown' | 'suppressed' | 'complained';

const REFUSAL_MESSAGES: Record<RecipientRefusal, string> = {
  recipient_complained: 'The recipient marked earlier mail as spam; nothing more is sent to them.',
  recipient_unsubscribed: 'The recipient unsubscribed from notifications.',
  recipient_suppressed: 'The recipient address is in a bounce cooldown or suppressed; check its status.',
};

/** Step 9's answer, from recipient_refusal()'s code. */
export function recipientRefusalError(refusal: RecipientRefusal): ApiError {
  return new ApiError(refusal, REFUSAL_MESSAGES[refusal]);
}

/** What the reads that report a recipient get from SQL; an address without a row is clear. */
export interface RecipientVerdict {
  status: ContactStatus;
  isUnsubscribed: boolean;
  canSendNotifications: boolean;
}

/** The status endpoint's name for contact_status(): 'active' is reported as 'clear' there. */
export function recipientStateName(verdict: RecipientVerdict | undefined): RecipientStateName {
  return !verdict || verdict.status === 'active' ? 'clear' : verdict.status;
}
