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

/**
 * `text` (line ends CRLF) as quoted-printable: printable ASCII but "=" as it is, blanks as they are
 * unless they end a line, every other byte as =XX, CRLF kept as hard line breaks, and soft line
 * breaks ("=" CRLF) so no line passes 76 characters. An =XX is never split.
 */
export function encodeQuotedPrintable(text: string): string {
  const input = Buffer.from(text, 'utf8');
  const n = input.length;
  // worst case: every byte =XX (3), plus a soft break (3) every 24 such bytes
  const out = Buffer.allocUnsafe(n * 4 + 16);
  let o = 0;
  let column = 0;
  for (let i = 0; i < n; i++) {
    const c = input[i]!;
    if (c === CR && input[i + 1] === LF) {
      out[o++] = CR;
      out[o++] = LF;
      i++;
      column = 0;
      continue;
    }
    let isLiteral = c >= 33 && c <= 126 && c !== EQ;
    if (c === 32 || c === 9) {
      // a blank at the end of a line (or of the text) would be dropped in transit: encoded
      isLiteral = !(i + 1 === n || (input[i + 1] === CR && input[i + 2] === LF));
    }
    const width = isLiteral ? 1 : 3;
    // the last character of a line may use column 76 only if the line ends right after it
    const endsLine = i + 1 === n || (input[i + 1] === CR && input[i + 2] === LF);
    if (column + width > (endsLine ? MAX_LINE : MAX_LINE - 1)) {
      out[o++] = EQ;
      out[o++] = CR;
      out[o++] = LF;
      column = 0;
    }
    if (isLiteral) {
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
