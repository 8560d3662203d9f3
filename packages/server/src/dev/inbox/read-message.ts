// A captured message read back for the dev inbox: parsed with mailparser, with its links and
// one-time codes, and the facts the Checks tab shows. mailparser is loaded on the first message
// read (about 20 MB resident with its character-set tables), not when `mailsvc start` starts.
import type { CapturedEntry } from '../../delivery/transports/capture.js';
import { extractCodes } from './extract-codes.js';
import { extractLinks, type MessageLink } from './extract-links.js';
import { countLeafParts, type MimePart, mimeTree } from './mime-parts.js';

export interface InboxMessage {
  id: string;
  /** The index entry; null for a message whose entry is missing (its .eml is still shown). */
  entry: CapturedEntry | null;
  capturedAt: string | null;
  subject: string;
  from: string;
  /** The envelope recipient when the entry has it, else the To header. */
  to: string;
  toHeader: string;
  date: string;
  html: string | null;
  text: string | null;
  /** As written in the message (encoded words stay encoded), unfolded to one line each. */
  headers: { name: string; value: string }[];
  links: MessageLink[];
  codes: string[];
  raw: Buffer;
}

export async function readInboxMessage(
  id: string,
  raw: Buffer,
  entry: CapturedEntry | null,
): Promise<InboxMessage> {
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(raw, { skipTextToHtml: true });
  const toHeader = Array.isArray(parsed.to)
    ? parsed.to.map((a) => a.text).join(', ')
    : (parsed.to?.text ?? '');
  const html = typeof parsed.html === 'string' ? parsed.html : null;
  const text = parsed.text ?? null;
  return {
    id,
    entry,
    capturedAt: entry?.capturedAt ?? null,
    subject: parsed.subject ?? entry?.subject ?? '',
    from: parsed.from?.text ?? '',
    to: entry?.to ?? toHeader,
    toHeader,
    date: parsed.date?.toISOString() ?? '',
    html,
    text,
    headers: parsed.headerLines.map((h) => {
      const line = h.line.replace(/\r?\n[ \t]+/g, ' ');
      const colon = line.indexOf(':');
      return colon < 0
        ? { name: h.key, value: line }
        : { name: line.slice(0, colon), value: line.slice(colon + 1).trim() };
    }),
    links: extractLinks({ html, text }),
    codes: extractCodes({ html, text }),
    raw,
  };
}

export interface MessageFacts {
  sizeBytes: number;
  htmlBytes: number | null;
  parts: MimePart;
  partCount: number;
  listUnsubscribe: string | null;
  listUnsubscribePost: string | null;
}

/** Size, MIME structure and one-click unsubscribe headers (RFC 8058) of a message. */
export function messageFacts(m: InboxMessage): MessageFacts {
  const header = (name: string) => m.headers.find((h) => h.name.toLowerCase() === name)?.value ?? null;
  const parts = mimeTree(m.raw);
  return {
    sizeBytes: m.raw.length,
    htmlBytes: m.html === null ? null : Buffer.byteLength(m.html),
    parts,
    partCount: countLeafParts(parts),
    listUnsubscribe: header('list-unsubscribe'),
    listUnsubscribePost: header('list-unsubscribe-post'),
  };
}
