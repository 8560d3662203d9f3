// Plain-text bounces (no DSN part) of the mail systems in bounce-formats/: found by a format's
// intro or by X-Failed-Recipients, read the same way whatever the system. The explanation is the
// text before the returned original; each failed address stands at the start of a line (alone,
// in angle brackets, followed by ":" or " on <date>", or after "Recipient:" or a reason such as
// "Unknown user:"); its evidence is the text from it to the next address: a reply with its code,
// or else the words, read by the one classifier (domain/failures/classify-failure.ts). These are
// the systems' final-failure templates; a delay warning is not read (nothing has failed yet).
// Linear: the text is cut to 64 KiB, lines to 1,000 characters, and no pattern has overlapping
// quantifiers (corpus.test.ts times a hostile bounce against a benign one).
import { readFailure, statusInReply } from '../domain/failures/classify-failure.js';
import type { FeedbackItem, FeedbackReport } from '../domain/feedback/types.js';
import { BOUNCE_FORMATS, type BounceFormat } from './bounce-formats/index.js';
import { allHeaders, type MimePart, parseHeaderBlock, textOf } from './mime.js';
import { clip, originalHeaders, refFromHeaders } from './report-parts.js';

/** How much of a plain-text bounce is read: its explanation is short; the quoted original may not be. */
const PLAIN_TEXT_MAX = 64 * 1024;
const MAX_PLAIN_RECIPIENTS = 20;
const INTRO_WINDOW = 4 * 1024;

/** Markers of the original that any format may use. */
const COMMON_ORIGINAL = [/^-+ ?Original message -+$/im, /^-+ Original message follows/im];

/** Not a failure yet: a delay warning (Exim, Postfix, Sendmail, Exchange word them so). */
const DELAY_WARNING =
  /has not yet been delivered|not been delivered yet|still being retried|will (?:continue to )?(?:try|retry|be retried)|delivery (?:is )?delayed|delayed mail|message is delayed|only a temporary failure|do not need to re-?send/i;

/** A line that names a failed address, with what may precede and follow it. */
const ADDRESS_LINE =
  /^[ \t>]*(?:(?:(?:final-)?recipient:|unknown user:|user mailbox exceeds allowed size:|mailbox full:|unknown host:|host unknown:|smtp|failed to deliver to)[ \t]*)?'?<?([^<>\s@"(),:;]+@[^<>\s"(),:;]+?)>?'?(?=[ \t]*:|[ \t]+on\b|[ \t]*\(|[ \t]*$)/gim;

/** A transcript's RCPT TO command. */
const RCPT_TO = /RCPT TO:[ \t]*<([^<>\s@]+@[^<>\s]+)>/gi;

/** Addresses a bounce names that are never the failed recipient. */
const NOT_A_RECIPIENT = /^(?:postmaster|mailer-daemon|bounces\+)/i;

/** A reply in free text: "550 5.1.1 …", "550-5.1.1 …", "554: delivery error …", "<<< 550 …". */
const REPLY = /(?:^|[\s:<>(])([245]\d\d)(?:[ :-]|$)/;

/** The bounce's own text: the message's text/plain, or the first in its parts, never inside a returned message. */
function plainBody(root: MimePart): string | undefined {
  const queue: MimePart[] = [root];
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part.contentType === 'text/plain') return textOf(part);
    if (part.contentType.startsWith('multipart/')) queue.push(...part.parts);
  }
  return undefined;
}

/** The explanation and the quoted original, split at the first marker found. */
function splitOriginal(
  text: string,
  format: BounceFormat | undefined,
): { explanation: string; quoted: string } {
  let cut = text.length;
  for (const marker of [...(format?.original ? [format.original] : []), ...COMMON_ORIGINAL]) {
    const m = marker.exec(text);
    if (m && m.index < cut) cut = m.index;
  }
  const lineEnd = text.indexOf('\n', cut);
  return { explanation: text.slice(0, cut), quoted: lineEnd < 0 ? '' : text.slice(lineEnd + 1) };
}

/** The failed addresses in order of their first mention: the header's, else the lines'. */
function failedAddresses(explanation: string, header: string): string[] {
  const found = new Set<string>();
  for (const a of header.split(',')) if (a.includes('@')) found.add(a.trim().toLowerCase());
  if (found.size === 0) {
    for (const raw of explanation.split('\n')) {
      const line = raw.slice(0, 1000);
      for (const m of line.matchAll(ADDRESS_LINE)) {
        const address = m[1]!.toLowerCase();
        if (!NOT_A_RECIPIENT.test(address)) found.add(address);
      }
    }
  }
  // Session transcripts (MDaemon): the address the refused RCPT TO named.
  if (found.size === 0) {
    for (const m of explanation.slice(0, 16_000).matchAll(RCPT_TO)) {
      const address = m[1]!.toLowerCase();
      if (!NOT_A_RECIPIENT.test(address)) found.add(address);
    }
  }
  return [...found].slice(0, MAX_PLAIN_RECIPIENTS);
}

/**
 * What a segment says: the line quoting the reply (from its code on), else the first lines of
 * words after the address (Domino's "not listed in Domino Directory", Exchange 2003's reason).
 */
function evidenceOf(segment: string): { status?: string; diagnostic?: string; hasReply: boolean } {
  const lines = segment.split('\n').map((l) => l.slice(0, 1000));
  // The final refusal first: a transcript quotes the 250s before it.
  for (const reply of [/\b5\d\d[ -]5\.\d{1,3}\.\d{1,3}\b/, /\b4\d\d[ -]4\.\d{1,3}\.\d{1,3}\b/]) {
    for (const line of lines) {
      const m = reply.exec(line);
      if (!m) continue;
      const diagnostic = line.slice(m.index);
      const status = statusInReply(diagnostic);
      return { ...(status && { status }), diagnostic, hasReply: true };
    }
  }
  const status = statusInReply(segment.slice(0, 8000));
  for (const line of lines) {
    if (/\(#[245]\.\d{1,3}\.\d{1,3}\)|#[245]\.\d{1,3}\.\d{1,3}>/.test(line)) {
      return { ...(status && { status }), diagnostic: lines.join(' '), hasReply: true };
    }
    const reply = REPLY.exec(line);
    if (reply?.[1]?.startsWith('5'))
      return { ...(status && { status }), diagnostic: line.slice(reply.index), hasReply: true };
  }
  return { ...(status && { status }), diagnostic: lines.slice(0, 10).join(' '), hasReply: false };
}

/**
 * A known system's bounce that names no full address (GroupWise names the local part only): one
 * finding about the message's only recipient, when the words say something we know.
 */
function unnamedFailure(explanation: string, quoted: string, root: MimePart): FeedbackReport | undefined {
  const diagnostic = clip(explanation.split('\n').slice(0, 12).join(' '));
  const reading = readFailure({ source: 'report', permanent: true, text: diagnostic });
  if (reading.reason === 'unknown') return undefined;
  const items: FeedbackItem[] = [{ kind: 'failed', ...reading, ...(diagnostic && { diagnostic }) }];
  return { type: 'plain-bounce', items, ref: refFromHeaders(originalOf(root, quoted)) };
}

function originalOf(root: MimePart, quoted: string) {
  return (
    originalHeaders(root) ??
    (quoted
      ? parseHeaderBlock(quoted.replace(/^(?:[ \t]*\r?\n)+/, '').split(/\r?\n[ \t]*\r?\n/)[0] ?? '')
      : undefined)
  );
}

export function parsePlainBounce(root: MimePart): FeedbackReport | undefined {
  const full = plainBody(root);
  if (full === undefined) return undefined;
  const text = full.slice(0, PLAIN_TEXT_MAX);
  const failedHeader = allHeaders(root.headers, 'x-failed-recipients').join(',');
  // A format's intro stands near the top: look for it there, not in a long quoted original.
  const head = text.slice(0, INTRO_WINDOW);
  const format = BOUNCE_FORMATS.find((f) => f.intro.test(head));
  if (!failedHeader && !format) return undefined;
  const { explanation, quoted } = splitOriginal(text, format);
  // A format's intro must stand in its own text, not in the quoted original.
  if (format && !format.intro.test(explanation)) return undefined;
  if (DELAY_WARNING.test(explanation)) return undefined;
  const recipients = failedAddresses(explanation, failedHeader);
  if (recipients.length === 0)
    return format?.namesNoAddress ? unnamedFailure(explanation, quoted, root) : undefined;
  const lower = explanation.toLowerCase();
  // Each address's evidence starts at the line that first names it (iMail and others put the
  // reason before the address on that line).
  const lineStart = (at: number) => (at <= 0 ? 0 : explanation.lastIndexOf('\n', at) + 1);
  const positions = recipients
    .map((r) => ({ r, at: lineStart(lower.indexOf(r)) }))
    .sort((a, b) => a.at - b.at);
  const items: FeedbackItem[] = [];
  for (const [i, { r, at }] of positions.entries()) {
    // Each recipient's evidence is the text from its mention to the next recipient's.
    const segment = explanation.slice(at, positions[i + 1]?.at ?? explanation.length);
    const { status, diagnostic: words, hasReply } = evidenceOf(segment);
    // Without a format's intro (X-Failed-Recipients alone), only a reply is evidence enough.
    if (!format && !hasReply && !status) continue;
    let diagnostic = clip(words);
    let reading = readFailure({ source: 'report', permanent: true, status, text: diagnostic });
    // Some systems (Verizon) give the reason above the address list: read it when the address's
    // own lines say nothing we know.
    if (reading.reason === 'unknown' && !hasReply && format?.reasonAbove) {
      const above = explanation.slice(0, positions[0]!.at).split('\n').slice(-8);
      const preamble = clip(above.filter((l) => !/^\s*(?:subject|sent|to|from|date):/i.test(l)).join(' '));
      const aboveReading = readFailure({ source: 'report', permanent: true, status, text: preamble });
      if (aboveReading.reason !== 'unknown') [reading, diagnostic] = [aboveReading, preamble];
    }
    items.push({
      kind: 'failed',
      ...reading,
      recipient: r,
      ...(status && { status }),
      ...(diagnostic && { diagnostic }),
    });
  }
  if (items.length === 0) return undefined;
  return { type: 'plain-bounce', items, ref: refFromHeaders(originalOf(root, quoted)) };
}
