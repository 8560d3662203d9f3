// Pages of the dev inbox (/dev/inbox). Every value taken from a message is escaped; the HTML part
// is shown only inside a sandboxed frame (empty sandbox: no scripts, no same-origin, no forms).
import { escapeHtml } from '@mailsvc/templates';
import type { CapturedEntry } from '../../delivery/transports/capture.js';
import { maskEmail } from '../../domain/email.js';
import { htmlDocument } from './html-document.js';

export interface InboxMessageView {
  messageId: string;
  subject: string;
  from: string;
  to: string;
  date: string;
  html: string | null;
  text: string | null;
  headers: { name: string; value: string }[];
  raw: string;
}

const STYLE = `
:root { color-scheme: light dark; }
body { margin: 0; padding: 1rem 1.5rem 3rem; font: 0.95rem/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.35rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.05rem; margin: 2rem 0 0.5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.4rem 0.6rem; border-bottom: 1px solid #8884; }
th { font-weight: 600; }
td.nowrap, th.nowrap { white-space: nowrap; }
pre { white-space: pre-wrap; word-break: break-all; padding: 0.75rem; border: 1px solid #8884; border-radius: 0.4rem; font-size: 0.85rem; max-height: 40rem; overflow: auto; }
iframe { width: 100%; height: 42rem; border: 1px solid #8884; border-radius: 0.4rem; background: #fff; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; word-break: break-word; }
nav a { margin-right: 1rem; }
.muted { opacity: 0.75; }
`;

function page(title: string, body: string, head = ''): string {
  return htmlDocument({ title, style: STYLE, body, head });
}

const time = (iso: string) =>
  `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' ').replace('Z', ' UTC'))}</time>`;

/** Newest first; refreshes itself every 5 seconds (a meta refresh: no script needed). */
export function renderInboxListPage(entries: CapturedEntry[]): string {
  const rows = entries
    .map(
      (e) => `<tr>
<td class="nowrap">${time(e.capturedAt)}</td>
<td>${escapeHtml(maskEmail(e.to))}</td>
<td>${escapeHtml(e.templateId)}</td>
<td><a href="/dev/inbox/${encodeURIComponent(e.messageId)}">${escapeHtml(e.subject || '(no subject)')}</a></td>
</tr>`,
    )
    .join('\n');
  const table =
    entries.length === 0
      ? '<p class="muted">No messages yet. Messages sent while the capture transport is in use appear here.</p>'
      : `<table>
<caption class="muted">Newest first, at most 200.</caption>
<thead><tr><th scope="col" class="nowrap">Captured</th><th scope="col">To</th><th scope="col">Template</th><th scope="col">Subject</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
  return page(
    `Inbox (${entries.length})`,
    `<nav><a href="/dev/inbox">Refresh</a><a href="/dev/inbox.json">JSON</a><a href="/dev/templates">Templates</a></nav>
<main>
<h1>Inbox (${entries.length})</h1>
${table}
</main>`,
    '<meta http-equiv="refresh" content="5">\n',
  );
}

export function renderInboxMessagePage(m: InboxMessageView): string {
  const id = encodeURIComponent(m.messageId);
  const headers = m.headers
    .map(
      (h) =>
        `<tr><th scope="row" class="nowrap">${escapeHtml(h.name)}</th><td>${escapeHtml(h.value)}</td></tr>`,
    )
    .join('\n');
  return page(
    m.subject || '(no subject)',
    `<nav><a href="/dev/inbox">← Inbox</a><a href="/dev/inbox/${id}/raw" download="${id}.eml">Download .eml</a></nav>
<main>
<h1>${escapeHtml(m.subject || '(no subject)')}</h1>
<dl>
<dt>From</dt><dd>${escapeHtml(m.from)}</dd>
<dt>To</dt><dd>${escapeHtml(m.to)}</dd>
<dt>Date</dt><dd>${escapeHtml(m.date)}</dd>
<dt>Message</dt><dd>${escapeHtml(m.messageId)}</dd>
</dl>
<h2>HTML</h2>
${m.html === null ? '<p class="muted">No HTML part.</p>' : `<iframe sandbox="" title="HTML part of the message" srcdoc="${escapeHtml(m.html)}"></iframe>`}
<h2>Text</h2>
${m.text === null ? '<p class="muted">No text part.</p>' : `<pre>${escapeHtml(m.text)}</pre>`}
<h2>Headers</h2>
<table>
<tbody>
${headers}
</tbody>
</table>
<h2>Source</h2>
<pre>${escapeHtml(m.raw)}</pre>
</main>`,
  );
}

export function renderInboxNotFoundPage(): string {
  return page(
    'Message not found',
    `<nav><a href="/dev/inbox">← Inbox</a></nav>
<main><h1>Message not found</h1><p>No captured message has this id.</p></main>`,
  );
}
