// The links of a captured message, with their text, for the e2e API and the Checks tab.
import { attributeOf, indexOfClosingTag, textOf } from './html-text.js';

export interface MessageLink {
  url: string;
  /** The link's text (or, for an image link, its alt text); empty when it has none. */
  text: string;
}

function linksInHtml(html: string): MessageLink[] {
  const links: MessageLink[] = [];
  let from = 0;
  for (const m of html.matchAll(/<a(\s[^>]*)?>/gi)) {
    if (m.index < from) continue; // inside the previous link (nested links are not valid HTML)
    const start = m.index + m[0].length;
    const end = indexOfClosingTag(html, 'a', start);
    if (end < 0) break;
    from = end;
    const url = attributeOf(m[1] ?? '', 'href')?.trim();
    if (!url) continue;
    const inner = html.slice(start, end);
    const alt = [...inner.matchAll(/<img(\s[^>]*)>/gi)].map((i) => attributeOf(i[1]!, 'alt') ?? '').join(' ');
    links.push({ url, text: textOf(inner) || alt.trim() });
  }
  return links;
}

/** A text part's URLs; the templates write a button as `Label: https://…`, so that label is its text. */
function linksInText(text: string): MessageLink[] {
  const links: MessageLink[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const m of line.matchAll(/https?:\/\/[^\s<>"]+/g)) {
      const url = m[0].replace(/[.,;:!?)\]]+$/, '');
      const label = /^\s*([^:]{1,80}):\s*$/.exec(line.slice(0, m.index));
      links.push({ url, text: label ? label[1]!.trim() : '' });
    }
  }
  return links;
}

/** From the HTML part when there is one (the links a reader clicks), else from the text part. */
export function extractLinks(parts: { html: string | null; text: string | null }): MessageLink[] {
  if (parts.html) return linksInHtml(parts.html);
  return parts.text ? linksInText(parts.text) : [];
}
