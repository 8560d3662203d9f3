// Reading text out of a message's HTML part without a DOM: enough for the markup our templates
// write (and harmless on any other: the results are only ever shown escaped).

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes character references: the named ones escapeHtml writes, &nbsp;, and numeric ones. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,6});/g, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
      ? String.fromCodePoint(code)
      : whole;
  });
}

/** The text of an HTML fragment: tags removed, references decoded, white space collapsed. */
export function textOf(fragment: string): string {
  return decodeEntities(fragment.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]*>/g, ' '))
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}

/** The value of an attribute in a start tag (`<a href="…" …>`), decoded; null when absent. */
export function attributeOf(startTag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'=<>\`]+))`, 'i').exec(startTag);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '') : null;
}

/** Where the closing tag of `tagName` (letters and digits) starts at or after `from`; -1 if none. */
export function indexOfClosingTag(html: string, tagName: string, from: number): number {
  const re = new RegExp(`</${tagName}[\\s>]`, 'gi');
  re.lastIndex = from;
  return re.exec(html)?.index ?? -1;
}
