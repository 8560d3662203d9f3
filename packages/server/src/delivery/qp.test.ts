// The quoted-printable encoder against libqp's decoder (the one mailparser uses): any text decodes
// back unchanged, no line passes 76 characters, only printable ASCII is written.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { encodeQuotedPrintable } from './qp.js';

const require = createRequire(import.meta.url);
const libqp = require('libqp') as { decode(s: string): Buffer };

function check(text: string): void {
  const encoded = encodeQuotedPrintable(text);
  expect(libqp.decode(encoded).toString('utf8')).toBe(text);
  for (const line of encoded.split('\r\n')) {
    expect(line.length).toBeLessThanOrEqual(76);
    expect(line).toMatch(/^[\x21-\x7e \t]*$/);
    // a blank never ends a line (it would be dropped in transit)
    expect(line).not.toMatch(/[ \t]$/);
  }
}

describe('quoted-printable', () => {
  it('decodes back to the same text: blanks at line ends, "=", long lines, UTF-8, control bytes', () => {
    check('');
    check('plain');
    check('a = b\r\ntrailing blank \r\ntrailing tab\t\r\n\r\nend ');
    check('x'.repeat(300));
    check(`${'é'.repeat(100)}\r\n${'a'.repeat(74)}é${'b'.repeat(80)}`);
    check('.starts with a dot\r\nFrom the start\r\n\u0000\u0007\u001b bell');
    check(`${'y '.repeat(60)}\r\n${'='.repeat(40)}`);
    check('bare\rCR and bare\nLF stay text');
  });

  it('never reads past its text into an earlier call’s bytes (its buffers are kept between calls)', () => {
    check('ab\r\ncd\r\n'); // leaves CR LF where the next, shorter text ends
    check('ab\r'); // a bare CR at the end is =0D, not a line break borrowed from the last call
    check('a '); // a blank at the end is =20
  });

  it('decodes back to the same text for random text of every kind of character', () => {
    const alphabet = ['a', 'Z', ' ', '\t', '=', '.', '\r\n', 'é', '€', '😀', '\u0000', '-', '>'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let t = 0; t < 500; t++) {
      const length = Math.floor(random() * 400);
      let text = '';
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      check(text);
    }
  });
});
