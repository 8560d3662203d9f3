// The one reading of a failure (DESIGN.md §5): a reply to RCPT TO at delivery, a DSN, a plain-text
// bounce, a relay's or SES's bounce event all come here with what they carry (a status, a reply
// code, the text) and get the same answer: is it permanent, and does it count against the
// recipient. Conservative on purpose: a hard bounce cools the address down and the third
// suppresses it, so only a report that the mailbox or its domain does not exist counts.
// Everything else that failed — the sender's reputation, a DNSBL listing, a policy, a full
// mailbox, a timeout — fails the message and leaves the recipient alone.

/** RFC 3463 / RFC 7505 codes that say the address does not exist (or no longer accepts mail). */
export const MAILBOX_MISSING_CODES: ReadonlySet<string> = new Set([
  '5.1.1', // bad destination mailbox address
  '5.1.2', // bad destination system address (no such domain)
  '5.1.3', // bad destination mailbox address syntax
  '5.1.6', // destination mailbox has moved, no forwarding address
  '5.1.10', // recipient address has null MX (RFC 7505)
  '5.2.1', // mailbox disabled, not accepting messages
]);

/**
 * Reply codes that, given at RCPT TO without an enhanced code, say the mailbox is bad (RFC 5321
 * §4.2.2: 550 mailbox unavailable, 551 user not local, 553 mailbox name not allowed). A report
 * after the fact always carries a status, so this applies to a live reply only.
 */
const BARE_MAILBOX_REPLIES: ReadonlySet<number> = new Set([550, 551, 553]);

/**
 * Words of a refusal that blames the sender even under a mailbox code: some receivers answer
 * "550 5.1.1" to a blocked IP. Any of these keeps the recipient untouched.
 */
const SENDER_BLAMED =
  /\b(spamhaus|spamcop|barracuda|black ?list(ed)?|block ?list(ed)?|dnsbl|rbl|reputation|blocked|banned|spam|policy|poor sending)\b/i;

const STATUS = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
// An enhanced code right after a reply code ("550 5.1.1", "550-5.1.1", "#5.1.1" of qmail). A number
// elsewhere in the text (an IP address such as 203.5.1.2) is not one.
const REPLY_WITH_STATUS = /(?:\b[245]\d\d[ -]|\(#)([245]\.\d{1,3}\.\d{1,3})\b/;

/** The enhanced status code a Status field or a reply carries, normalised (5.01.001 → 5.1.1). */
export function normaliseStatus(text: string | undefined): string | undefined {
  const m = text ? STATUS.exec(text) : null;
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : undefined;
}

/** The enhanced code quoted with a reply in free text (a Diagnostic-Code, a plain-text bounce). */
export function statusInReply(text: string | undefined): string | undefined {
  const m = text ? REPLY_WITH_STATUS.exec(text) : null;
  return m ? normaliseStatus(m[1]) : undefined;
}

/** What a failure carries, wherever it was read. */
export interface FailureEvidence {
  /**
   * Where it was read: `rcpt` a live reply to RCPT TO; `command` a live reply to another command
   * (MAIL FROM, DATA: about the sender or the content, never the mailbox); `report` a DSN, a
   * plain-text bounce or a relay's event, which names its recipient.
   */
  source: 'rcpt' | 'command' | 'report';
  /** Whether the sender gave up: a 5xx reply, a DSN's `Action: failed`, a Permanent bounce. */
  permanent: boolean;
  /** The enhanced status code, normalised (a Status field, or the one quoted with the reply). */
  status?: string;
  /** The basic reply code of a live reply. */
  replyCode?: number;
  /** The reply or diagnostic text. */
  text?: string;
}

/** A permanent failure that counts against the recipient: the mailbox or its domain is missing. */
export function countsAgainstRecipient(e: FailureEvidence): boolean {
  if (!e.permanent || e.source === 'command') return false;
  const status =
    e.status ??
    (e.source === 'rcpt' && e.replyCode !== undefined && BARE_MAILBOX_REPLIES.has(e.replyCode)
      ? '5.1.1'
      : undefined);
  if (!status || !MAILBOX_MISSING_CODES.has(status)) return false;
  return !SENDER_BLAMED.test(e.text ?? '');
}
