// Which reported failures count against a recipient (DESIGN.md §5). Conservative on purpose: a
// hard bounce cools the address down and the third suppresses it, so only a report that the
// mailbox or its domain does not exist counts. Everything else that failed — the sender's
// reputation, a DNSBL listing, a policy, a full mailbox, a timeout — fails the message and leaves
// the recipient alone. The same rule serves mail to `mailsvc inbound`, the relay intake and SES.

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
 * Words of a refusal that blames the sender even under a mailbox code: some receivers answer
 * "550 5.1.1" to a blocked IP. Any of these keeps the recipient untouched.
 */
const SENDER_BLAMED =
  /\b(spamhaus|spamcop|barracuda|black ?list(ed)?|block ?list(ed)?|dnsbl|rbl|reputation|blocked|banned|spam|policy|poor sending)\b/i;

const STATUS = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
// An enhanced code right after a reply code ("550 5.1.1", "550-5.1.1", "#5.1.1" of qmail).
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

/**
 * A permanent failure that counts against the recipient: class 5, a mailbox-missing code, and no
 * words of a block. 4.x.x is never hard, whatever the text; 5.7.x never is (not in the set).
 */
export function isMailboxMissing(status: string | undefined, diagnostic: string | undefined): boolean {
  if (!status || !MAILBOX_MISSING_CODES.has(status)) return false;
  return !SENDER_BLAMED.test(diagnostic ?? '');
}
