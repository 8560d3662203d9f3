// Mail to the bounce domain → a FeedbackReport: DSNs (RFC 3464, RFC 6533), ARF complaints
// (RFC 5965), plain-text bounces of common MTAs where the evidence is unambiguous, and
// automatic replies, which are not bounces. What the report means for a message and its
// recipient is decided in domain/feedback; this only reads.
import libmime from 'libmime';
import { normaliseStatus, readFailure, statusInReply } from '../domain/failures/classify-failure.js';
import type { FeedbackItem, FeedbackReport, MessageRef } from '../domain/feedback/types.js';
import {
  allHeaders,
  type HeaderField,
  lastHeader,
  type MimePart,
  parseHeaderBlock,
  parseMime,
  textOf,
  walkParts,
} from './mime.js';

const DIAGNOSTIC_MAX = 500;
const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const ORIGINAL_TYPES = new Set([
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/global-headers',
]);

/**
 * Free text of a report as we keep it: one line, at most 500 characters, without control
 * characters or unpaired surrogates (which PostgreSQL's jsonb refuses and logs would carry).
 */
export function clip(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const flat = text
    .slice(0, DIAGNOSTIC_MAX * 4)
    .replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ')
    .trim()
    .slice(0, DIAGNOSTIC_MAX);
  const wellFormed = (flat as string & { toWellFormed(): string }).toWellFormed();
  return wellFormed || undefined;
}

/** `rfc822; user@example.net` or `utf-8; 用户@例子.广告` → the address, lower-cased. */
function addressOf(field: string | undefined): string | undefined {
  if (!field) return undefined;
  const semi = field.indexOf(';');
  let address = (semi >= 0 ? field.slice(semi + 1) : field).trim();
  // RFC 6533 utf-8 addresses may carry \x{HEX} escapes (RFC 6533 §3): undo them.
  address = address.replace(/\\x\{([0-9a-f]{1,6})\}/gi, (_, hex: string) =>
    Number.parseInt(hex, 16) <= 0x10ffff ? String.fromCodePoint(Number.parseInt(hex, 16)) : '\ufffd',
  );
  address = address.replace(/^<|>$/g, '');
  return address.includes('@') ? address.toLowerCase() : undefined;
}

/** The headers of the returned original: a message/rfc822 (or global) part, or text/rfc822-headers. */
function originalHeaders(root: MimePart): HeaderField[] | undefined {
  for (const part of walkParts(root)) {
    if (part === root || !ORIGINAL_TYPES.has(part.contentType)) continue;
    if (part.parts[0]) return part.parts[0].headers;
    return parseHeaderBlock(part.body.toString('utf8'));
  }
  return undefined;
}

const OUR_ID = /^\s*(msg_[0-9A-Za-z]{26})\s*$/;

/** How the returned original names our message: X-Mailsvc-Message-ID, its last Message-ID, its Return-Path. */
export function refFromHeaders(headers: HeaderField[] | undefined): MessageRef {
  if (!headers) return {};
  const ref: MessageRef = {};
  const ours = OUR_ID.exec(lastHeader(headers, 'x-mailsvc-message-id') ?? '');
  if (ours) ref.mailsvcMessageId = ours[1]!;
  const ids = allHeaders(headers, 'message-id');
  const last = ids[ids.length - 1]?.trim().replace(/^<|>$/g, '');
  if (last) ref.messageIdHeader = last;
  const returnPath = lastHeader(headers, 'return-path')?.trim().replace(/^<|>$/g, '');
  if (returnPath) ref.returnPath = returnPath;
  return ref;
}

function parseDsn(report: MimePart, root: MimePart): FeedbackReport {
  // The per-message block comes first; each later block is one recipient (RFC 3464 §2.1).
  const blocks = textOf(report)
    .split(/\r?\n[ \t]*\r?\n/)
    .map(parseHeaderBlock)
    .filter((b) => b.length > 0);
  const items: FeedbackItem[] = [];
  for (const block of blocks.slice(1)) {
    const action = lastHeader(block, 'action')?.toLowerCase().trim();
    const diagnosticField = lastHeader(block, 'diagnostic-code');
    const diagnostic = clip(diagnosticField?.replace(/^[^;]*;/, ''));
    // The Status field decides; a Diagnostic-Code may quote an older reply (a 4xx before the
    // final 5xx). Without a Status, only a reply code with its enhanced code in the diagnostic.
    const status = normaliseStatus(lastHeader(block, 'status')) ?? statusInReply(diagnostic);
    const recipient = addressOf(
      lastHeader(block, 'final-recipient') ?? lastHeader(block, 'original-recipient'),
    );
    const base = {
      ...(recipient && { recipient }),
      ...(status && { status }),
      ...(diagnostic && { diagnostic }),
    };
    if (action === 'failed') {
      items.push({
        kind: 'failed',
        ...readFailure({ source: 'report', permanent: true, status, text: diagnostic }),
        ...base,
      });
    } else if (action === 'delayed') {
      items.push({ kind: 'delayed', hard: false, ...base });
    } else if (action === 'delivered') {
      items.push({ kind: 'delivered', hard: false, ...base });
    }
    // relayed, expanded: handed on, nothing known yet (RFC 3464 §2.3.3).
  }
  return { type: 'dsn', items, ref: refFromHeaders(originalHeaders(root)) };
}

function parseArf(report: MimePart, root: MimePart): FeedbackReport {
  const fields = parseHeaderBlock(textOf(report));
  const feedbackType = lastHeader(fields, 'feedback-type')?.toLowerCase().trim() ?? '';
  // Only abuse is a complaint (RFC 5965 §7.3): not-spam, fraud, virus, other say something else.
  const items: FeedbackItem[] = feedbackType === 'abuse' ? [{ kind: 'complained', hard: false }] : [];
  return { type: 'arf', items, ref: refFromHeaders(originalHeaders(root)), feedbackType };
}

/** Where a plain-text bounce stops explaining and starts quoting the original. */
const ORIGINAL_MARKERS = [
  /^-+ This is a copy of the message/im, // Exim
  /^--- Below this line is a copy of the message/im, // qmail
  /^-+ Original message -+$/im,
  /^-+ Undelivered message (?:follows|headers)/im, // Postfix (plain text)
];

const PLAIN_INTROS = [
  /This message was created automatically by mail delivery software/i, // Exim
  /^Hi\. This is the qmail-send program/im, // qmail
  /^This is the mail system at host/im, // Postfix
  /^Delivery has failed to these recipients or groups/im, // Exchange
];

function plainBody(root: MimePart): string | undefined {
  for (const part of walkParts(root)) {
    if (part.contentType === 'text/plain') return textOf(part);
  }
  return undefined;
}

/**
 * The line of a plain-text bounce that quotes the reply: from the reply code on ("550 5.1.1 …"),
 * or qmail's line with "(#5.1.1)". Line by line with anchored patterns, each line cut to 1,000
 * characters: a regular expression over the whole text could take quadratic time.
 */
function diagnosticLine(segment: string): string | undefined {
  for (const raw of segment.split('\n')) {
    const line = raw.slice(0, 1000);
    const reply = /\b[245]\d\d[ -][245]\.\d{1,3}\.\d{1,3}\b/.exec(line);
    if (reply) return line.slice(reply.index);
    if (/\(#[245]\.\d{1,3}\.\d{1,3}\)/.test(line)) return line;
  }
  return undefined;
}

/** How much of a plain-text bounce is read: its explanation is short; the quoted original may not be. */
const PLAIN_TEXT_MAX = 64 * 1024;
const MAX_PLAIN_RECIPIENTS = 20;

function parsePlainBounce(root: MimePart): FeedbackReport | undefined {
  const full = plainBody(root);
  if (full === undefined) return undefined;
  const text = full.slice(0, PLAIN_TEXT_MAX);
  const failedHeader = allHeaders(root.headers, 'x-failed-recipients').join(',');
  if (!failedHeader && !PLAIN_INTROS.some((re) => re.test(text))) return undefined;
  let explanation = text;
  let quoted = '';
  for (const marker of ORIGINAL_MARKERS) {
    const m = marker.exec(text);
    if (m && m.index < explanation.length) {
      explanation = text.slice(0, m.index);
      // The original starts on the line after the marker's line.
      const lineEnd = text.indexOf('\n', m.index);
      quoted = lineEnd < 0 ? '' : text.slice(lineEnd + 1);
    }
  }
  // The failed addresses: X-Failed-Recipients (Exim, Exchange), else "<address>:" lines
  // (qmail, Postfix), else the indented list after Exim's "following address(es) failed".
  const recipients = new Set<string>();
  for (const a of failedHeader.split(',')) if (a.includes('@')) recipients.add(a.trim().toLowerCase());
  if (recipients.size === 0) {
    for (const m of explanation.matchAll(/^<([^<>\s@]+@[^<>\s]+)>:/gm)) recipients.add(m[1]!.toLowerCase());
  }
  if (recipients.size === 0) {
    const list = /following address(?:\(es\))? failed:\s*\n((?:[ \t]+\S.*\n?)+)/i.exec(explanation);
    for (const m of list?.[1]?.matchAll(/^[ \t]+<?([^<>\s]+@[^<>\s:]+)>?/gm) ?? [])
      recipients.add(m[1]!.toLowerCase());
  }
  if (recipients.size === 0) return undefined;
  const items: FeedbackItem[] = [];
  const lower = explanation.toLowerCase();
  // Our messages have one recipient each: a bounce listing thousands is read for its first few.
  const positions = [...recipients]
    .slice(0, MAX_PLAIN_RECIPIENTS)
    .map((r) => ({ r, at: Math.max(0, lower.indexOf(r)) }))
    .sort((a, b) => a.at - b.at);
  const saysPermanent = /\bpermanent error\b/i.test(explanation);
  for (const [i, { r, at }] of positions.entries()) {
    // Each recipient's evidence is the text from its mention to the next recipient's.
    const segment = explanation.slice(at, positions[i + 1]?.at ?? explanation.length);
    const status = statusInReply(segment);
    // Evidence must be unambiguous: a 5xx reply (or qmail's #5.x.x) naming a class-5 status, or a
    // permanent-error statement. Without one the bounce is not read at all.
    const isPermanent = status?.startsWith('5.') || saysPermanent;
    if (!status && !isPermanent) continue;
    const diagnostic = clip(diagnosticLine(segment));
    items.push({
      kind: 'failed',
      ...readFailure({ source: 'report', permanent: true, status, text: diagnostic }),
      recipient: r,
      ...(status && { status }),
      ...(diagnostic && { diagnostic }),
    });
  }
  if (items.length === 0) return undefined;
  const original =
    originalHeaders(root) ??
    (quoted
      ? parseHeaderBlock(quoted.replace(/^(?:[ \t]*\r?\n)+/, '').split(/\r?\n[ \t]*\r?\n/)[0] ?? '')
      : undefined);
  return { type: 'plain-bounce', items, ref: refFromHeaders(original) };
}

/** RFC 3834 and the common vendor headers of out-of-office and other automatic replies. */
function isAutoReply(root: MimePart): boolean {
  const h = root.headers;
  const autoSubmitted = lastHeader(h, 'auto-submitted')?.toLowerCase().trim();
  if (autoSubmitted && autoSubmitted !== 'no') return true;
  if (
    lastHeader(h, 'x-autoreply') ||
    lastHeader(h, 'x-autorespond') ||
    lastHeader(h, 'x-auto-response-suppress')
  )
    return true;
  if (/^auto_reply$/i.test(lastHeader(h, 'precedence')?.trim() ?? '')) return true;
  const subject = libmime.decodeWords(lastHeader(h, 'subject') ?? '');
  return /^(out of office|automatic reply|auto(matic)?[- ]?(reply|response)|auto:)/i.test(subject.trim());
}

/** Reads one message received by `mailsvc inbound`. Throws MimeLimitError on absurd structures. */
export function parseReport(raw: Buffer): FeedbackReport {
  const root = parseMime(raw);
  if (root.contentType === 'multipart/report') {
    const reportType = root.params['report-type']?.toLowerCase();
    const parts = [...walkParts(root)];
    if (reportType === 'feedback-report') {
      const report = parts.find((p) => p.contentType === 'message/feedback-report');
      if (report) return parseArf(report, root);
    } else {
      const report = parts.find((p) => DSN_TYPES.has(p.contentType));
      if (report) return parseDsn(report, root);
    }
  }
  const plain = parsePlainBounce(root);
  if (plain) return plain;
  if (isAutoReply(root)) return { type: 'auto-reply', items: [], ref: {} };
  return { type: 'unrecognised', items: [], ref: {} };
}
