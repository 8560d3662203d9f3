// Mail to the bounce domain → a FeedbackReport: DSNs (RFC 3464, RFC 6533), ARF complaints
// (RFC 5965), plain-text bounces of common MTAs where the evidence is unambiguous, and
// automatic replies, which are not bounces. What the report means for a message and its
// recipient is decided in domain/feedback; this only reads.
import libmime from 'libmime';
import { normaliseStatus, readFailure, statusInReply } from '../domain/failures/classify-failure.js';
import type { FeedbackItem, FeedbackReport } from '../domain/feedback/types.js';
import { lastHeader, type MimePart, parseHeaderBlock, parseMime, textOf, walkParts } from './mime.js';
import { parsePlainBounce } from './plain-bounce.js';
import { clip, originalHeaders, refFromHeaders } from './report-parts.js';

const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);

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

/**
 * The human-readable part of a report (RFC 6522: its first part, or that part's text/plain
 * alternative), cut to 16 KiB; never the returned original, whose text is ours.
 */
function humanReadable(root: MimePart): string {
  const first = root.parts[0];
  if (!first) return '';
  const text =
    first.contentType === 'text/plain'
      ? first
      : first.contentType.startsWith('multipart/')
        ? first.parts.find((p) => p.contentType === 'text/plain')
        : undefined;
  return text ? textOf(text).slice(0, 16 * 1024) : '';
}

/** Whether `line` names `needle` as a whole word (not inside a longer address or word). */
function namesWhole(line: string, needle: string): boolean {
  const lower = line.toLowerCase();
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
    const before = lower[at - 1];
    const after = lower[at + needle.length];
    if (!(before && /[\w.+-]/.test(before)) && !(after && /[\w+-]/.test(after))) return true;
  }
  return false;
}

/** The lines of `text` from the first one naming the recipient (its address or local part). */
function wordsAbout(text: string, recipient: string | undefined): string | undefined {
  if (!text || !recipient) return undefined;
  const lines = text.split('\n').map((l) => l.slice(0, 1000));
  // The whole address, else its local part as a whole word (GroupWise names only that); the
  // window ends at a blank line.
  const local = recipient.split('@')[0]!;
  let at = lines.findIndex((l) => namesWhole(l, recipient));
  if (at < 0 && local.length >= 3) at = lines.findIndex((l) => namesWhole(l, local));
  if (at < 0) return undefined;
  const window: string[] = [];
  for (const line of lines.slice(at, at + 4)) {
    if (window.length > 0 && line.trim() === '') break;
    window.push(line);
  }
  return window.join(' ');
}

function parseDsn(report: MimePart, root: MimePart): FeedbackReport {
  // The per-message block comes first; each later block is one recipient (RFC 3464 §2.1).
  const blocks = textOf(report)
    .split(/\r?\n[ \t]*\r?\n/)
    .map(parseHeaderBlock)
    .filter((b) => b.length > 0);
  const items: FeedbackItem[] = [];
  // Decoded only for a block without a Diagnostic-Code.
  let human: string | undefined;
  const humanText = () => (human ??= humanReadable(root));
  for (const block of blocks.slice(1)) {
    const action = lastHeader(block, 'action')?.toLowerCase().trim();
    const diagnosticField = lastHeader(block, 'diagnostic-code');
    const recipientField = lastHeader(block, 'final-recipient') ?? lastHeader(block, 'original-recipient');
    // Without a Diagnostic-Code (Exim, GroupWise, CommuniGate put the reason in the human-readable
    // part only), the words the human-readable part gives next to the recipient.
    const diagnostic = clip(
      diagnosticField?.replace(/^[^;]*;/, '') ?? wordsAbout(humanText(), addressOf(recipientField)),
    );
    // The Status field decides; a Diagnostic-Code may quote an older reply (a 4xx before the
    // final 5xx). Without a Status, only a reply code with its enhanced code in the diagnostic.
    const status = normaliseStatus(lastHeader(block, 'status')) ?? statusInReply(diagnostic);
    const recipient = addressOf(recipientField);
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
