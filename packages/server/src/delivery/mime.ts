// Builds the MIME message in one pass on strings: headers with RFC 2047 encoded words and folding
// (libmime, the Nodemailer project's MIME helpers), both bodies quoted-printable (qp.ts), CRLF line ends
// throughout, so the bytes built are the bytes signed and sent. Written here rather than with
// nodemailer's MailComposer because the composer builds through a chain of streams: 200 µs a
// message against 40 µs here (bench/RESULTS.md, delivery). Every header value was validated on
// accept: addresses are bare and normalised, the display name has no control characters, the
// subject is one line; the checks below keep CR and LF out of headers even so.
import { randomBytes } from 'node:crypto';
import libmime from 'libmime';
import { encodeQuotedPrintable } from './qp.js';

export interface MimeInput {
  messageId: string;
  /** `<msg_….<tag>@sending-domain>` (domain/feedback/signed-references.ts): the same on every attempt. */
  messageIdHeader: string;
  from: { name: string | null; address: string };
  to: string;
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  date: Date;
  /** Notification templates: the RFC 8058 one-click unsubscribe URL. */
  unsubscribeUrl: string | null;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// RFC 5322 atext and spaces: a display name of only these needs no quotes.
const ATOMS = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]*$/;
const LINE_BREAK = /\r\n|\r|\n/g;

/** A header value must be one line: CR and LF (and other controls) become spaces. */
function oneLine(value: string): string {
  return value.replace(/[\x00-\x1f\x7f]+/g, ' ');
}

/** RFC 5322 display name: bare atoms, a quoted string, or (non-ASCII) RFC 2047 encoded words. */
function displayName(name: string): string {
  const n = oneLine(name).trim();
  // An encoded word already in the name ("=?UTF-8?B?…?=") would be decoded by mail readers into
  // whatever it hides (another address, bidi controls): the whole name is encoded instead.
  if (!PRINTABLE_ASCII.test(n) || n.includes('=?')) return libmime.encodeWord(n, 'Q', 52);
  if (ATOMS.test(n)) return n;
  return `"${n.replace(/["\\]/g, '\\$&')}"`;
}

function mailbox(name: string | null, address: string): string {
  const a = `<${oneLine(address)}>`;
  return name ? `${displayName(name)} ${a}` : a.slice(1, -1);
}

/** `Name: value`, folded at 76 columns: a value already in header form (ASCII, encoded words made). */
function header(name: string, value: string): string {
  return `${libmime.foldLines(`${name}: ${oneLine(value)}`, 76)}\r\n`;
}

/**
 * Unstructured text (the Subject) in header form: non-ASCII words as RFC 2047 encoded words. A
 * value that holds text shaped like an encoded word ("=?utf-8?Q?…?=", from template data or a
 * contact's custom field) is encoded whole, so mail readers show it as written instead of
 * decoding what it hides (a CR LF and another header, a right-to-left override).
 */
function text(value: string): string {
  const v = oneLine(value);
  if (v.includes('=?')) return libmime.encodeWord(v, 'Q', 52);
  return PRINTABLE_ASCII.test(v) ? v : libmime.encodeWords(v, 'Q', 52);
}

/** RFC 5322 date in UTC: `Fri, 27 Nov 2026 02:53:13 +0000`. */
function rfc5322Date(d: Date): string {
  return d.toUTCString().replace(/GMT$/, '+0000');
}

/** A body part's content: CRLF line ends, quoted-printable, lines of at most 76 characters. */
function quotedPrintable(content: string): string {
  const encoded = encodeQuotedPrintable(content.replace(LINE_BREAK, '\r\n'));
  return encoded.endsWith('\r\n') ? encoded : `${encoded}\r\n`;
}

export function buildMime(input: MimeInput): Buffer {
  // "=_" cannot occur in quoted-printable text (every "=" is a soft break or =XX), so the
  // boundary can never appear inside a part.
  const boundary = `=_mailsvc_${randomBytes(12).toString('hex')}`;
  let head = `X-Mailsvc-Message-ID: ${oneLine(input.messageId)}\r\n`;
  if (input.unsubscribeUrl) {
    head += `List-Unsubscribe: <${oneLine(input.unsubscribeUrl)}>\r\n`;
    head += 'List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n';
  }
  head += header('From', mailbox(input.from.name, input.from.address));
  head += `To: ${oneLine(input.to)}\r\n`;
  if (input.replyTo) head += `Reply-To: ${oneLine(input.replyTo)}\r\n`;
  head += header('Subject', text(input.subject));
  head += `Message-ID: ${oneLine(input.messageIdHeader)}\r\n`;
  head += `Date: ${rfc5322Date(input.date)}\r\n`;
  head += 'MIME-Version: 1.0\r\n';
  head += `Content-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n`;
  const part = (type: string, content: string) =>
    `--${boundary}\r\nContent-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${quotedPrintable(content)}`;
  const message = `${head}\r\n${part('text/plain', input.text)}${part('text/html', input.html)}--${boundary}--\r\n`;
  return Buffer.from(message, 'utf8');
}
