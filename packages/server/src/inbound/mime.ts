// A small MIME reader for reports (RFC 2045/2046, RFC 3462 multipart/report). mailparser reads
// mail for people: it folds message/delivery-status and message/feedback-report into the text
// body, so the per-recipient fields of a DSN cannot be told apart. This keeps every part, its
// header fields in order, and its decoded body. Bounded: 16 levels, 200 parts.
import libmime from 'libmime';

export interface HeaderField {
  /** Lower-cased field name. */
  name: string;
  /** Unfolded value, RFC 2047 words not decoded. */
  value: string;
}

export interface MimePart {
  headers: HeaderField[];
  /** Lower-cased media type (`text/plain` when the part declares none, RFC 2045 §5.2). */
  contentType: string;
  params: Record<string, string>;
  /** The body with its Content-Transfer-Encoding undone. */
  body: Buffer;
  /** Sub-parts of a multipart, or the enclosed message of message/rfc822 and message/global. */
  parts: MimePart[];
}

const MAX_DEPTH = 16;
const MAX_PARTS = 200;

/** The value of the last field of that name (lower-case), or undefined. */
export function lastHeader(headers: HeaderField[], name: string): string | undefined {
  for (let i = headers.length - 1; i >= 0; i--) if (headers[i]!.name === name) return headers[i]!.value;
  return undefined;
}

export function allHeaders(headers: HeaderField[], name: string): string[] {
  return headers.filter((h) => h.name === name).map((h) => h.value);
}

/** Header fields of a block of lines (a message's header, or one block of a DSN). */
export function parseHeaderBlock(text: string): HeaderField[] {
  const fields: HeaderField[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length > 0) {
      fields[fields.length - 1]!.value += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    fields.push({ name, value: line.slice(colon + 1).trim() });
  }
  return fields;
}

/** Splits at the first empty line: header text and body bytes. */
function splitHeaderBody(raw: Buffer): { head: string; body: Buffer } {
  // A body may start without any header at all (a blank first line).
  if (raw[0] === 0x0a) return { head: '', body: raw.subarray(1) };
  if (raw[0] === 0x0d && raw[1] === 0x0a) return { head: '', body: raw.subarray(2) };
  const lf = raw.indexOf('\n\n');
  const crlf = raw.indexOf('\r\n\r\n');
  if (lf < 0 && crlf < 0) return { head: raw.toString('latin1'), body: Buffer.alloc(0) };
  if (crlf >= 0 && (lf < 0 || crlf < lf))
    return { head: raw.subarray(0, crlf).toString('latin1'), body: raw.subarray(crlf + 4) };
  return { head: raw.subarray(0, lf).toString('latin1'), body: raw.subarray(lf + 2) };
}

const HEX = (c: number) =>
  c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;

/**
 * Quoted-printable (RFC 2045 §6.7) in one pass. libqp strips trailing whitespace with a regular
 * expression that takes quadratic time on a long run of spaces (64 KB of them: 5.3 s), and a
 * report is anyone's input.
 */
export function decodeQuotedPrintable(text: string): Buffer {
  // A bare LF becomes CRLF: at most twice the input.
  const out = Buffer.allocUnsafe(text.length * 2 + 2);
  let n = 0;
  let start = 0;
  while (start <= text.length) {
    const lf = text.indexOf('\n', start);
    const lineEnd = lf < 0 ? text.length : lf;
    let end = lineEnd;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    // Trailing whitespace was added in transport (RFC 2045 §6.7 rule 3).
    while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
    const isSoftBreak = end > start && text.charCodeAt(end - 1) === 61;
    if (isSoftBreak) end--;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 61 && i + 2 < end) {
        const hi = HEX(text.charCodeAt(i + 1));
        const lo = HEX(text.charCodeAt(i + 2));
        if (hi >= 0 && lo >= 0) {
          out[n++] = hi * 16 + lo;
          i += 2;
          continue;
        }
      }
      out[n++] = c & 0xff;
    }
    if (lf < 0) break;
    if (!isSoftBreak) {
      out[n++] = 13;
      out[n++] = 10;
    }
    start = lf + 1;
  }
  return out.subarray(0, n);
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.toLowerCase().trim()) {
    case 'base64':
      return Buffer.from(body.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.toString('latin1'));
    default:
      return body;
  }
}

/** The byte ranges between the boundary lines of a multipart body (preamble and epilogue dropped). */
function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  const text = body.toString('latin1');
  const delimiter = `--${boundary}`;
  const parts: Buffer[] = [];
  let start = -1;
  let pos = 0;
  while (pos <= text.length) {
    const next = text.indexOf('\n', pos);
    const end = next < 0 ? text.length : next;
    const line = text.slice(pos, end).replace(/\r$/, '');
    if (line.startsWith(delimiter)) {
      const rest = line.slice(delimiter.length);
      const isClose = rest.startsWith('--');
      if (isClose || rest.trim() === '') {
        if (start >= 0) {
          // The CRLF before a boundary belongs to the boundary (RFC 2046 §5.1.1).
          let stop = pos;
          if (text[stop - 1] === '\n') stop--;
          if (text[stop - 1] === '\r') stop--;
          parts.push(body.subarray(start, Math.max(start, stop)));
        }
        if (isClose) return parts;
        start = end + 1;
      }
    }
    if (next < 0) break;
    pos = next + 1;
  }
  // No closing delimiter: keep what came after the last boundary (truncated reports happen).
  if (start >= 0 && start < body.length) parts.push(body.subarray(start));
  return parts;
}

export class MimeLimitError extends Error {}

function parsePart(raw: Buffer, depth: number, budget: { parts: number }): MimePart {
  if (depth > MAX_DEPTH || ++budget.parts > MAX_PARTS)
    throw new MimeLimitError('MIME structure too deep or too large');
  const { head, body: encoded } = splitHeaderBody(raw);
  const headers = parseHeaderBlock(head);
  const declared = lastHeader(headers, 'content-type');
  const { value, params } = declared
    ? libmime.parseHeaderValue(declared)
    : { value: 'text/plain', params: {} };
  const contentType = value.toLowerCase().trim() || 'text/plain';
  const body = decodeBody(encoded, lastHeader(headers, 'content-transfer-encoding'));
  const part: MimePart = { headers, contentType, params, body, parts: [] };
  if (contentType.startsWith('multipart/') && params.boundary) {
    part.parts = splitMultipart(body, params.boundary).map((p) => parsePart(p, depth + 1, budget));
  } else if (contentType === 'message/rfc822' || contentType === 'message/global') {
    part.parts = [parsePart(body, depth + 1, budget)];
  }
  return part;
}

/** Reads a whole message. Throws MimeLimitError past the nesting or part limits. */
export function parseMime(raw: Buffer): MimePart {
  return parsePart(raw, 0, { parts: 0 });
}

/** Every part, depth first, the root included. */
export function* walkParts(part: MimePart): Generator<MimePart> {
  yield part;
  for (const child of part.parts) yield* walkParts(child);
}

/** A text part's body as a string, in its declared charset (unknown charsets read as latin1). */
export function textOf(part: MimePart): string {
  const charset = part.params.charset?.trim().toLowerCase();
  if (!charset || charset === 'us-ascii' || charset === 'utf-8' || charset === 'utf8')
    return part.body.toString('utf8');
  try {
    return new TextDecoder(charset).decode(part.body);
  } catch {
    return part.body.toString('latin1');
  }
}
