// The MIME structure of a captured message (its parts, as a tree), for the Checks tab.

export interface MimePart {
  contentType: string;
  /** Size of the part, headers included, in bytes as stored. */
  bytes: number;
  children: MimePart[];
}

const MAX_DEPTH = 8;
const MAX_PARTS = 200;

function headerValue(head: string, name: string): string | null {
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const m = new RegExp(`^${name}[ \\t]*:[ \\t]*(.*)$`, 'im').exec(unfolded);
  return m ? m[1]!.trim() : null;
}

function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function parsePart(source: string, depth: number, budget: { parts: number }): MimePart {
  budget.parts++;
  const sep = /\r?\n\r?\n/.exec(source);
  const head = sep ? source.slice(0, sep.index) : source;
  const body = sep ? source.slice(sep.index + sep[0].length) : '';
  const declared = headerValue(head, 'content-type') ?? 'text/plain';
  const contentType = declared.split(';')[0]!.trim().toLowerCase() || 'text/plain';
  const node: MimePart = { contentType, bytes: source.length, children: [] };
  const boundary = contentType.startsWith('multipart/') ? boundaryOf(declared) : null;
  if (!boundary || depth >= MAX_DEPTH) return node;
  let current: string[] | null = null;
  for (const line of body.split(/\r?\n/)) {
    const trimmed = line.trimEnd();
    if (trimmed === `--${boundary}` || trimmed === `--${boundary}--`) {
      if (current && budget.parts < MAX_PARTS)
        node.children.push(parsePart(current.join('\r\n'), depth + 1, budget));
      if (trimmed === `--${boundary}--`) break;
      current = [];
    } else current?.push(line);
  }
  return node;
}

/** The message's part tree; the bytes are read as latin1 so that sizes are byte counts. */
export function mimeTree(raw: Buffer): MimePart {
  return parsePart(raw.toString('latin1'), 0, { parts: 0 });
}

/** The leaves: the parts that hold content (text, HTML, attachments). */
export function countLeafParts(part: MimePart): number {
  return part.children.length === 0 ? 1 : part.children.reduce((n, c) => n + countLeafParts(c), 0);
}
