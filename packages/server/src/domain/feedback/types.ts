// What a bounce, a delivery notice or a complaint says, whatever carried it (mail to `mailsvc
// inbound`, a relay's signed webhook, Amazon SES through SNS). Parsers produce FeedbackReports;
// apply-feedback.ts resolves the message and changes its status and its recipient's state.
import type { FailureReason } from '@mailsvc/contract/message-errors';

/**
 * One finding about one recipient of one message:
 * - `delivered`: the receiving system took it (DSN Action: delivered, a relay's delivery event);
 * - `delayed`: still being tried (DSN Action: delayed) — never a failure, changes nothing;
 * - `failed`: given up; `hard` only when the mailbox or domain does not exist;
 * - `complained`: the recipient reported it as spam (ARF Feedback-Type: abuse, a relay complaint).
 */
export type FeedbackKind = 'delivered' | 'delayed' | 'failed' | 'complained';

export interface FeedbackItem {
  kind: FeedbackKind;
  /** For `failed`: the recipient's mailbox or domain does not exist (counts against the recipient). */
  hard: boolean;
  /** The recipient the finding is about, lower-cased, when the report names one. */
  recipient?: string;
  /** RFC 3463 enhanced status code (5.1.1), when known. */
  status?: string;
  /** The remote server's words (Diagnostic-Code, SMTP reply), at most 500 characters. */
  diagnostic?: string;
  /** For `failed`: why, in the one failure vocabulary (domain/failures/classify-failure.ts). */
  reason?: FailureReason;
}

/**
 * How a report names the message it is about. Mail to `mailsvc inbound` is unauthenticated: it is
 * matched only by a reference we signed (signed-references.ts). The relay intakes are signed by
 * their environment's secret or by Amazon SNS, so their unsigned claims are taken, within that
 * environment. The first reference that resolves wins, in this order.
 */
export interface MessageRef {
  /** From a signed reference, already verified: the VERP recipient, or the original's signed Message-ID or Return-Path. */
  signedMessageId?: string;
  /** The X-Mailsvc-Message-ID header of the returned original (or the relay event's field): a claim. */
  mailsvcMessageId?: string;
  /** The last Message-ID header of the returned original, angle brackets removed: signed or a claim. */
  messageIdHeader?: string;
  /** The Return-Path header of the returned original (our VERP address when the final MTA kept it). */
  returnPath?: string;
}

export type ReportType =
  | 'dsn' // RFC 3464 / RFC 6533 multipart/report
  | 'arf' // RFC 5965 feedback report
  | 'plain-bounce' // a plain-text bounce of a known MTA with unambiguous evidence
  | 'auto-reply' // out-of-office and other automatic replies: not a bounce
  | 'unrecognised' // nothing we can read as feedback
  | 'relay-event' // POST /v1/events/intake
  | 'ses'; // POST /v1/events/ses

export interface FeedbackReport {
  type: ReportType;
  items: FeedbackItem[];
  ref: MessageRef;
  /** For ARF: the Feedback-Type (abuse, not-spam, fraud, virus, other, …), lower-cased. */
  feedbackType?: string;
}
