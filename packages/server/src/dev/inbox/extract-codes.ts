// One-time codes in a captured message, read from the structure the templates render, never
// guessed from digits in prose (a date, an amount or an order number is not a code).
//
// The rule (docs/dev-inbox.md):
//   1. HTML part: the text of every element whose class list contains `code` — the templates'
//      code block is `<span class="code">482913</span>` — in document order.
//   2. Only when the HTML part has none (or there is no HTML part): the text part's lines indented
//      by exactly four spaces that stand alone between blank lines — the text rendering of the
//      same block (`\n\n    482913\n\n`).
// Duplicates are dropped; values over 240 characters (the code field's limit) are not codes.
import { attributeOf, indexOfClosingTag, textOf } from './html-text.js';

const MAX_CODE_LENGTH = 240;

function codesInHtml(html: string): string[] {
  const codes: string[] = [];
  for (const m of html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)(\s[^>]*)>/g)) {
    const classes = attributeOf(m[2]!, 'class');
    if (!classes?.split(/\s+/).includes('code')) continue;
    // Up to its closing tag: a code block holds only text. Without one the markup is broken and
    // nothing after it is read (this also keeps the scan linear).
    const start = m.index + m[0].length;
    const end = indexOfClosingTag(html, m[1]!, start);
    if (end < 0) break;
    codes.push(textOf(html.slice(start, end)));
  }
  return codes;
}

function codesInText(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blank = (i: number) => i < 0 || i >= lines.length || lines[i]!.trim() === '';
  const codes: string[] = [];
  lines.forEach((line, i) => {
    const m = /^ {4}(\S(?:.*\S)?)$/.exec(line);
    if (m && blank(i - 1) && blank(i + 1)) codes.push(m[1]!);
  });
  return codes;
}

export function extractCodes(parts: { html: string | null; text: string | null }): string[] {
  const fromHtml = parts.html ? codesInHtml(parts.html) : [];
  const found = fromHtml.some((c) => c !== '') ? fromHtml : parts.text ? codesInText(parts.text) : [];
  return [...new Set(found.filter((c) => c !== '' && c.length <= MAX_CODE_LENGTH))];
}
