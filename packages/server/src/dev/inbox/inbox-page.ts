// Pages of the dev inbox (/dev/inbox). Every value taken from a message is escaped. The HTML part
// is shown only inside a sandboxed frame that may open popups (its links, in a new tab) and
// nothing else: no scripts, no same origin, no forms, no top navigation. The pages work without
// JavaScript; /dev/inbox/app.js (same origin) adds live updates, delete buttons and local times.
import { escapeHtml, FRAME_SANDBOX, frameDocument } from '@mailsvc/templates';
import { htmlDocument } from '../../api/pages/html-document.js';
import type { CapturedEntry } from '../../delivery/transports/capture.js';
import type { DkimCheck } from './check-dkim.js';
import type { InboxFilter } from './inbox-query.js';
import { INBOX_STYLE } from './inbox-style.js';
import type { MimePart } from './mime-parts.js';
import type { InboxMessage, MessageFacts } from './read-message.js';

// The frame's sandbox and document are the gallery preview's too (@mailsvc/templates, preview-frame.ts).
export { FRAME_SANDBOX };

/** The dev pages' bar; the Webhooks page (webhook-page.ts) shares it and page(). */
export const NAV = (current: 'inbox' | 'message' | 'webhooks') =>
  `<header class="bar"><nav aria-label="Dev pages" class="bar-nav">` +
  `<a href="/dev/inbox"${current === 'inbox' ? ' aria-current="page"' : ''}>${current === 'message' ? '← Inbox' : 'Inbox'}</a> ` +
  `<a href="/dev/inbox/webhooks"${current === 'webhooks' ? ' aria-current="page"' : ''}>Webhooks</a> ` +
  `<a href="/dev/templates">Templates</a> ` +
  `<a href="/dev/inbox/api/messages?limit=10">JSON API</a></nav></header>`;

export function page(title: string, body: string, head = ''): string {
  return htmlDocument({
    title,
    style: INBOX_STYLE,
    body,
    head: `${head}<script src="/dev/inbox/app.js" defer></script>\n`,
  });
}

export const time = (iso: string) =>
  `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'))}</time>`;

const messageUrl = (id: string) => `/dev/inbox/${encodeURIComponent(id)}`;

function filterUrl(f: InboxFilter): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) params.set(k, v);
  const qs = params.toString();
  return qs ? `/dev/inbox?${qs}` : '/dev/inbox';
}

export interface InboxListView {
  /** The matching messages, newest first, at most PAGE_LIMIT. */
  entries: CapturedEntry[];
  /** Whether more messages match than `entries` holds (the page stopped reading there). */
  more: boolean;
  /** How many messages the inbox holds (its index files). */
  total: number;
  filter: InboxFilter;
  /** The values the filters can take: those of the newest messages. */
  templates: string[];
  /** Each id with its recorded names: `Demo (ten_…)`, or the id alone when none was recorded. */
  tenants: { id: string; label: string }[];
  projects: { id: string; label: string }[];
}

function option(value: string, label: string, selected: string | undefined): string {
  const isSelected = selected !== undefined && selected.toLowerCase() === value.toLowerCase();
  return `<option value="${escapeHtml(value)}"${isSelected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
}

function filtersForm(v: InboxListView): string {
  const f = v.filter;
  const templates = [...v.templates];
  if (f.template && !templates.some((t) => t.toLowerCase() === f.template!.toLowerCase()))
    templates.unshift(f.template);
  const withSelected = (choices: { id: string; label: string }[], selected: string | undefined) =>
    selected && !choices.some((c) => c.id.toLowerCase() === selected.toLowerCase())
      ? [{ id: selected, label: selected }, ...choices]
      : choices;
  const projects = withSelected(v.projects, f.project);
  const tenants = withSelected(v.tenants, f.tenant);
  const chip = f.to
    ? `<p><span class="chip">To ${escapeHtml(f.to)} <a href="${escapeHtml(filterUrl({ ...f, to: undefined }))}" aria-label="Show every recipient">✕</a></span></p>`
    : '';
  return `<form class="filters" method="get" action="/dev/inbox" role="search" aria-label="Filter messages">
${f.to ? `<input type="hidden" name="to" value="${escapeHtml(f.to)}">` : ''}
<label>Recipient or subject<input type="search" name="q" value="${escapeHtml(f.q ?? '')}" placeholder="jane@ or login"></label>
<label>Template<select name="template">${option('', 'Any template', f.template ?? '')}${templates.map((t) => option(t, t, f.template)).join('')}</select></label>
<label>Project<select name="project">${option('', 'Any project', f.project ?? '')}${projects.map((p) => option(p.id, p.label, f.project)).join('')}</select></label>
<label>Tenant<select name="tenant">${option('', 'Any tenant', f.tenant ?? '')}${tenants.map((t) => option(t.id, t.label, f.tenant)).join('')}</select></label>
<span class="go"><button type="submit">Filter</button>${Object.keys(f).length > 0 ? '<a href="/dev/inbox">Clear</a>' : ''}</span>
</form>
${chip}`;
}

function listRow(e: CapturedEntry, filter: InboxFilter): string {
  const subject = e.subject || '(no subject)';
  // The project's name, a link to its messages; under it the tenant's name (its id when an older
  // entry has none), a link to the tenant's messages, and its id (wide screens).
  const project = e.projectId
    ? `<span class="project"><span class="vh">Project: </span><a href="${escapeHtml(filterUrl({ ...filter, project: e.projectId }))}" title="Only messages of project ${escapeHtml(e.projectId)}">${escapeHtml(e.projectName ?? e.projectId)}</a></span>`
    : '';
  const tenant = e.tenantId
    ? `<span class="tenant-name"><span class="muted">Tenant</span> <a href="${escapeHtml(filterUrl({ ...filter, tenant: e.tenantId }))}" title="Only messages of tenant ${escapeHtml(e.tenantId)}">${escapeHtml(e.tenantName ?? e.tenantId)}</a></span>${e.tenantName ? `<span class="id muted">${escapeHtml(e.tenantId)}</span>` : ''}`
    : '';
  const owner = project || tenant ? `${project}${tenant}` : '<span class="muted">no tenant recorded</span>';
  return `<tr data-id="${escapeHtml(e.messageId)}">
<td class="when">${time(e.capturedAt)}</td>
<td class="to"><a href="${escapeHtml(filterUrl({ ...filter, to: e.to }))}" title="Only messages to this address">${escapeHtml(e.to)}</a></td>
<td class="subject"><a href="${messageUrl(e.messageId)}">${escapeHtml(subject)}</a> <span class="tag">${escapeHtml(e.templateId)}</span></td>
<td class="tenant">${owner}</td>
<td class="actions"><button type="button" class="danger" data-delete="${escapeHtml(e.messageId)}" aria-label="Delete “${escapeHtml(subject)}” to ${escapeHtml(e.to)}" hidden>Delete</button></td>
</tr>`;
}

/** Newest first. Without JavaScript it refreshes itself every 5 seconds; with it, on each change. */
export function renderInboxListPage(v: InboxListView): string {
  const isFiltered = Object.keys(v.filter).length > 0;
  const summary = isFiltered
    ? v.more
      ? `More than ${v.entries.length} of ${v.total} match; the newest ${v.entries.length} are shown.`
      : `${v.entries.length} of ${v.total} match.`
    : v.total > v.entries.length
      ? `The newest ${v.entries.length} of ${v.total}.`
      : '';
  const list =
    v.entries.length === 0
      ? `<p class="muted">${
          v.total === 0
            ? 'No messages yet. Messages delivered while the capture transport is in use appear here.'
            : 'No message matches these filters.'
        }</p>`
      : `<table class="list">
<caption class="vh">Captured messages, newest first</caption>
<thead><tr><th scope="col">Received</th><th scope="col">To</th><th scope="col">Subject and template</th><th scope="col">Project and tenant</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>
${v.entries.map((e) => listRow(e, v.filter)).join('\n')}
</tbody>
</table>
<p class="muted summary">Newest first.${summary ? ` ${summary}` : ''}</p>`;
  return page(
    `Inbox (${v.total})`,
    `${NAV('inbox')}
<main data-page="list">
<div class="head">
<h1>Inbox <span class="muted" id="count">(${v.total})</span></h1>
<span class="live" id="live" role="status" hidden></span>
<button type="button" class="danger" data-delete-all hidden${v.total === 0 ? ' disabled' : ''}>Delete all</button>
</div>
${filtersForm(v)}
<div id="messages">
${list}
</div>
</main>`,
    '<noscript><meta http-equiv="refresh" content="5"></noscript>\n',
  );
}

const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;

function partTree(p: MimePart): string {
  const children = p.children.length > 0 ? `<ul>${p.children.map((c) => partTree(c)).join('')}</ul>` : '';
  return `<li><code>${escapeHtml(p.contentType)}</code> <span class="muted">${bytes(p.bytes)}</span>${children}</li>`;
}

const badge = (result: string) => {
  const kind = result === 'pass' ? 'pass' : result === 'none' ? 'none' : result === 'n/a' ? 'na' : 'fail';
  return `<span class="badge ${kind}">${escapeHtml(result === 'n/a' ? 'not applicable' : result)}</span>`;
};

function linkItem(l: { url: string; text: string }): string {
  const isWeb = /^https?:\/\//i.test(l.url);
  const url = isWeb
    ? `<a href="${escapeHtml(l.url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(l.url)}</a>`
    : `<code>${escapeHtml(l.url)}</code>`;
  return `<li>${l.text && l.text !== l.url ? `<strong>${escapeHtml(l.text)}</strong> → ` : ''}${url}</li>`;
}

export interface InboxMessagePageView {
  message: InboxMessage;
  facts: MessageFacts;
  dkim: DkimCheck | { error: string };
  /** The envelope sender (Return-Path) domain, for the SPF note. */
  returnPathDomain: string | null;
}

function checksPanel(v: InboxMessagePageView): string {
  const { facts, dkim, message: m } = v;
  const dkimCell =
    'error' in dkim
      ? `${badge('temperror')} ${escapeHtml(dkim.error)}`
      : `${badge(dkim.result)} ${escapeHtml(dkim.explanation)}${
          dkim.signatures.length > 1 || (dkim.signatures[0] && dkim.signatures[0].signedHeaders.length > 0)
            ? `<ul>${dkim.signatures
                .map(
                  (s) =>
                    `<li>${badge(s.result)} d=${escapeHtml(s.domain)} s=${escapeHtml(s.selector)}; signs <code>${escapeHtml(s.signedHeaders.join(':'))}</code></li>`,
                )
                .join('')}</ul>`
            : ''
        }`;
  const signed = 'error' in dkim ? [] : (dkim.signatures[0]?.signedHeaders ?? []);
  const covered = (name: string) =>
    signed.length === 0
      ? ''
      : signed.includes(name)
        ? ' (covered by DKIM)'
        : ' (<strong>not</strong> covered by DKIM)';
  const oneClick = facts.listUnsubscribePost?.replace(/\s+/g, '') === 'List-Unsubscribe=One-Click';
  const unsubscribe = `<ul>
<li>List-Unsubscribe: ${facts.listUnsubscribe === null ? 'absent' : `present${covered('list-unsubscribe')}: <code>${escapeHtml(facts.listUnsubscribe)}</code>`}</li>
<li>List-Unsubscribe-Post: ${facts.listUnsubscribePost === null ? 'absent' : `present${covered('list-unsubscribe-post')}: <code>${escapeHtml(facts.listUnsubscribePost)}</code>${oneClick ? '' : ' (not the RFC 8058 value List-Unsubscribe=One-Click)'}`}</li>
</ul>
<p class="muted" style="margin:0.25rem 0 0">Notification templates carry both (RFC 8058 one-click unsubscribe); security and transactional mail carries neither.</p>`;
  const links =
    m.links.length === 0 ? '<span class="muted">None.</span>' : `<ol>${m.links.map(linkItem).join('')}</ol>`;
  return `<dl class="checks">
<dt>DKIM</dt><dd>${dkimCell}</dd>
<dt>SPF</dt><dd>${badge('n/a')} Checked by the receiving server against the address that connects to it and the envelope sender’s domain${v.returnPathDomain ? ` (<code>${escapeHtml(v.returnPathDomain)}</code>)` : ''}. A captured message never left this machine, so there is nothing to check here.</dd>
<dt>One-click unsubscribe</dt><dd>${unsubscribe}</dd>
<dt>Size</dt><dd>${bytes(facts.sizeBytes)}${facts.htmlBytes === null ? '' : `; HTML part ${bytes(facts.htmlBytes)} decoded${facts.htmlBytes > 102 * 1024 ? ' — <strong>over 102 KB: Gmail clips it</strong>' : ' (Gmail clips HTML over 102 KB)'}`}</dd>
<dt>Parts</dt><dd>${facts.partCount} ${facts.partCount === 1 ? 'part' : 'parts'}<ul>${partTree(facts.parts)}</ul></dd>
<dt>Links (${m.links.length})</dt><dd>${links}</dd>
<dt>Codes</dt><dd>${m.codes.length === 0 ? '<span class="muted">None found (read from the code block only).</span>' : m.codes.map((c) => `<span class="code">${escapeHtml(c)}</span>`).join('')}</dd>
</dl>`;
}

/** `Demo App · prj_…`, or the id alone when no name was recorded. */
const named = (name: string | undefined, id: string) =>
  `${name ? `${escapeHtml(name)} · ` : ''}<span class="id">${escapeHtml(id)}</span>`;

export function renderInboxMessagePage(v: InboxMessagePageView): string {
  const m = v.message;
  const id = encodeURIComponent(m.id);
  const subject = m.subject || '(no subject)';
  const e = m.entry;
  const headers = m.headers
    .map((h) => `<tr><th scope="row">${escapeHtml(h.name)}</th><td>${escapeHtml(h.value)}</td></tr>`)
    .join('\n');
  const meta = [
    ['From', escapeHtml(m.from)],
    ['To', escapeHtml(m.to)],
    ...(m.toHeader && m.toHeader.toLowerCase() !== m.to.toLowerCase()
      ? [['To header', escapeHtml(m.toHeader)]]
      : []),
    ['Received', m.capturedAt ? time(m.capturedAt) : escapeHtml(m.date)],
    ...(e ? [['Template', `<span class="tag">${escapeHtml(e.templateId)}</span>`]] : []),
    ...(e?.projectId ? [['Project', named(e.projectName, e.projectId)]] : []),
    ...(e?.tenantId ? [['Tenant', named(e.tenantName, e.tenantId)]] : []),
    ...(m.codes.length > 0
      ? [
          [
            m.codes.length === 1 ? 'Code' : 'Codes',
            m.codes.map((c) => `<span class="code">${escapeHtml(c)}</span>`).join(''),
          ],
        ]
      : []),
    ['Message', `<span class="id">${escapeHtml(m.id)}</span>`],
  ]
    .map(([dt, dd]) => `<dt>${dt}</dt><dd>${dd}</dd>`)
    .join('\n');
  const frame =
    m.html === null
      ? '<p class="muted">No HTML part.</p>'
      : `<iframe sandbox="${FRAME_SANDBOX}" title="HTML part of the message" srcdoc="${escapeHtml(frameDocument(m.html))}"></iframe>`;
  return page(
    subject,
    `${NAV('message')}
<main data-page="message" data-id="${escapeHtml(m.id)}">
<p class="notice" id="gone" role="status" hidden>This message was deleted. <a href="/dev/inbox">Back to the inbox</a></p>
<h1>${escapeHtml(subject)}</h1>
<dl class="meta">
${meta}
</dl>
<div class="actions-row">
<a class="button" href="/dev/inbox/${id}/raw" download="${id}.eml">Download .eml</a>
<a class="button" href="/dev/inbox/api/messages/${id}">JSON</a>
<button type="button" class="danger" data-delete="${escapeHtml(m.id)}" data-then="/dev/inbox" hidden>Delete</button>
</div>
<nav class="tabs" aria-label="Views of the message">
<a href="#html">HTML</a><a href="#text">Text</a><a href="#headers">Headers</a><a href="#raw">Raw</a><a href="#checks">Checks</a>
</nav>
<div class="panels">
<section class="panel" id="html" aria-label="HTML part">
${frame}
</section>
<section class="panel" id="text" aria-label="Text part">
${m.text === null ? '<p class="muted">No text part.</p>' : `<pre>${escapeHtml(m.text)}</pre>`}
</section>
<section class="panel" id="headers" aria-label="Headers">
<table class="headers">
<tbody>
${headers}
</tbody>
</table>
</section>
<section class="panel" id="raw" aria-label="Raw source">
<pre>${escapeHtml(m.raw.toString('utf8'))}</pre>
</section>
<section class="panel" id="checks" aria-label="Checks">
${checksPanel(v)}
</section>
</div>
</main>`,
  );
}

export function renderInboxNotFoundPage(): string {
  return page(
    'Message not found',
    `${NAV('message')}
<main><h1>Message not found</h1><p>No captured message has this id; it may have been deleted.</p></main>`,
  );
}
