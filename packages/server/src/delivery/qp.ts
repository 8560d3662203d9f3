// Quoted-printable (RFC 2045 §6.7) for the bodies our MIME builder writes, in one pass over the
// UTF-8 bytes into one buffer. Hand-written because nodemailer's encode + wrap (string regexes,
// then a second pass to wrap) were 7% of the delivery worker's main thread at 2,000 messages/s
// (bench/RESULTS.md, delivery); the output decodes to the same text (qp.test.ts checks it with
// libqp, mailparser's decoder).

const HEX = Buffer.from('0123456789ABCDEF', 'latin1');
const EQ = 61;
const CR = 13;
const LF = 10;
const MAX_LINE = 76;

// What each byte is: printable ASCII but "=" is written as it is; a blank is too unless it ends a
// line; CR starts a hard line break when LF follows; everything else is =XX.
const LITERAL = 0;
const ENCODED = 1;
const BLANK = 2;
const HARD_BREAK = 3;
const KIND = new Uint8Array(256).fill(ENCODED);
for (let c = 33; c <= 126; c++) KIND[c] = LITERAL;
KIND[EQ] = ENCODED;
KIND[32] = BLANK;
KIND[9] = BLANK;
KIND[CR] = HARD_BREAK;

let scratchIn = Buffer.allocUnsafe(16 * 1024);
let scratchOut = Buffer.allocUnsafe(64 * 1024);

/**
 * `text` (line ends CRLF) as quoted-printable: printable ASCII but "=" as it is, blanks as they are
 * unless they end a line, every other byte as =XX, CRLF kept as hard line breaks, and soft line
 * breaks ("=" CRLF) so no line passes 76 characters. An =XX is never split.
 */
export function encodeQuotedPrintable(text: string): string {
  // The text's UTF-8 bytes and the output go into buffers kept between calls (the function never
  // yields, so no two calls share them): a body part's two buffers of several KB each were
  // allocated and freed for every message.
  if (scratchIn.length < text.length * 3 + 2) scratchIn = Buffer.allocUnsafe(text.length * 3 + 2);
  const input = scratchIn;
  const n = input.write(text, 0, 'utf8');
  // The loop looks up to two bytes ahead: past the text it must find neither CR nor LF, not an
  // earlier call's bytes.
  input[n] = 0;
  input[n + 1] = 0;
  // worst case: every byte =XX (3), plus a soft break (3) every 24 such bytes
  if (scratchOut.length < n * 4 + 16) scratchOut = Buffer.allocUnsafe(n * 4 + 16);
  const out = scratchOut;
  let o = 0;
  let column = 0;
  for (let i = 0; i < n; i++) {
    const c = input[i]!;
    let kind = KIND[c]!;
    if (kind === HARD_BREAK) {
      if (input[i + 1] === LF) {
        out[o++] = CR;
        out[o++] = LF;
        i++;
        column = 0;
        continue;
      }
      kind = ENCODED;
    } else if (kind === BLANK) {
      // a blank at the end of a line (or of the text) would be dropped in transit: encoded
      kind = i + 1 === n || (input[i + 1] === CR && input[i + 2] === LF) ? ENCODED : LITERAL;
    }
    const width = kind === LITERAL ? 1 : 3;
    // at most 75 characters and the "=" of a soft break; the last character of a line may take
    // column 76, as no soft break follows it
    if (column + width > MAX_LINE - 1) {
      const endsLine = i + 1 === n || (input[i + 1] === CR && input[i + 2] === LF);
      if (!endsLine || column + width > MAX_LINE) {
        out[o++] = EQ;
        out[o++] = CR;
        out[o++] = LF;
        column = 0;
      }
    }
    if (kind === LITERAL) {
      out[o++] = c;
    } else {
      out[o++] = EQ;
      out[o++] = HEX[c >> 4]!;
      out[o++] = HEX[c & 15]!;
    }
    column += width;
  }
  return out.toString('latin1', 0, o);
}
