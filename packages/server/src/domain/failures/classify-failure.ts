// The one reading of a failure (DESIGN.md §5): a reply to RCPT TO at delivery, a DSN, a plain-text
// bounce, a relay's or SES's bounce event all come here with what they carry (a status, a reply
// code, the text) and get the same answer: a kind and a reason of the one vocabulary
// (failure-reasons.ts). Conservative on purpose: a hard bounce cools the address down and the
// third suppresses it, so only a report that the mailbox or its domain does not exist counts.
// Everything else that failed — the sender's reputation, a DNSBL listing, a policy, a full
// mailbox, a timeout — leaves the recipient alone. The diagnostic decides over the code: the
// wording lists (failure-wording.ts) are read first, sender-side and transient signals before
// "no such mailbox", and the code speaks only where the text says nothing we know.

import {
  ADDRESS_REASONS,
  type FailureReading,
  type FailureReason,
  TRANSIENT_REASONS,
} from './failure-reasons.js';
import { MAILBOX_MISSING, NOT_THE_RECIPIENT, type Wording } from './failure-wording.js';

/**
 * Reply codes that, given at RCPT TO without an enhanced code, say the mailbox is bad (RFC 5321
 * §4.2.2: 550 mailbox unavailable, 551 user not local, 553 mailbox name not allowed). A report
 * after the fact always carries a status, so this applies to a live reply only.
 */
const BARE_MAILBOX_REPLIES: ReadonlySet<number> = new Set([550, 551, 553]);

const STATUS = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
// An enhanced code right after a reply code ("550 5.1.1", "550-5.1.1", Gmail's "550 #5.1.0"), or
// marked by "#" (qmail's "(#5.1.1)", Exchange 2003's "<mx.example.net #5.1.1>"). A number
// elsewhere in the text (an IP address such as 203.5.1.2) is not one.
const REPLY_WITH_STATUS = /(?:\b[245]\d\d[ -]#?|\(#|[ \t]#)([245]\.\d{1,3}\.\d{1,3})\b/;

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

/** The reason an enhanced status code gives on its own (RFC 3463, RFC 7372, RFC 7505). */
export function reasonOfStatus(status: string | undefined): FailureReason | undefined {
  if (!status) return undefined;
  const [, subject, detail] = status.split('.').map(Number) as [number, number, number];
  switch (`${subject}.${detail}`) {
    case '1.0':
    case '1.1':
    case '1.3':
    case '1.6':
      return 'user_unknown';
    case '1.2':
      return 'host_unknown';
    case '1.10':
      return 'not_accepting_mail';
    case '2.1':
      return 'mailbox_disabled';
    case '2.2':
      return 'mailbox_full';
    case '2.3':
    case '3.4':
      return 'message_too_large';
    case '4.7':
      return 'expired';
    case '1.7':
    case '1.8':
      return 'policy_blocked';
    case '7.23':
    case '7.24':
    case '7.25':
    case '7.26':
      return 'auth_failed';
  }
  if (subject === 3) return 'system_error';
  if (subject === 4) return 'network_error';
  if (subject === 7) return 'policy_blocked';
  return undefined;
}

const SENDER_STATUS = /^\d\.(?:7\.\d{1,3}|1\.[78])$/;

const firstMatch = (list: readonly Wording[], text: string) => list.find((w) => w.pattern.test(text))?.reason;

/** The kind a reason has, given whether the sender gave up. */
function kindOf(reason: FailureReason, permanent: boolean): FailureReading['kind'] {
  if (!permanent || TRANSIENT_REASONS.has(reason)) return 'soft';
  return ADDRESS_REASONS.has(reason) ? 'hard' : 'block';
}

/**
 * A failure's kind and reason. In order: a live reply to MAIL FROM or DATA never speaks for the
 * mailbox; a sender-side or transient wording decides whatever the code; a 5.7.x or bad-sender
 * code is never hard; a code naming another cause wins; then a "no such mailbox" wording (under
 * no code, a generic x.0.0, x.5.x or x.4.x routing code, or an address code); then the code; then
 * a bare 550/551/553 to RCPT TO without an enhanced code (RFC 5321 §4.2.2). A 4xx reply is soft
 * whatever it says; a report whose sender gave up (`Action: failed`) under a 4.x.x status is read
 * like a 5.x.x.
 */
export function classifyFailure(e: FailureEvidence): FailureReading {
  const text = e.text ?? '';
  const byCode = reasonOfStatus(e.status);
  const aboutSender = firstMatch(NOT_THE_RECIPIENT, text);
  if (e.source === 'command') {
    const reason = aboutSender ?? (byCode && !ADDRESS_REASONS.has(byCode) ? byCode : 'unknown');
    return { kind: kindOf(reason, e.permanent), reason };
  }
  if (aboutSender) return { kind: kindOf(aboutSender, e.permanent), reason: aboutSender };
  // DESIGN.md §5: a 5.7.x refusal (policy, security) and a bad sender address (x.1.7, x.1.8) never
  // touch the recipient, whatever the text says.
  if (e.status && SENDER_STATUS.test(e.status)) {
    const reason = byCode && !ADDRESS_REASONS.has(byCode) ? byCode : 'policy_blocked';
    return { kind: kindOf(reason, e.permanent), reason };
  }
  // A specific code that names another cause (5.2.2 full, 5.3.4 too large, 4.3.x system) wins;
  // the words decide under none, a generic one (x.0.0, x.5.x, x.4.x routing) or an address code.
  if (byCode && !ADDRESS_REASONS.has(byCode) && byCode !== 'network_error') {
    return { kind: kindOf(byCode, e.permanent), reason: byCode };
  }
  const missing = firstMatch(MAILBOX_MISSING, text);
  if (missing) return { kind: kindOf(missing, e.permanent), reason: missing };
  if (byCode) return { kind: kindOf(byCode, e.permanent), reason: byCode };
  if (
    e.source === 'rcpt' &&
    e.status === undefined &&
    e.replyCode !== undefined &&
    BARE_MAILBOX_REPLIES.has(e.replyCode)
  ) {
    return { kind: kindOf('user_unknown', e.permanent), reason: 'user_unknown' };
  }
  return { kind: e.permanent ? 'block' : 'soft', reason: 'unknown' };
}

/** A report's finding about a failure: whether it counts against the recipient, and why. */
export function readFailure(e: FailureEvidence): { hard: boolean; reason: FailureReason } {
  const { kind, reason } = classifyFailure(e);
  return { hard: kind === 'hard', reason };
}
