// The gallery's pages: the index of the catalogue, one page per template version, and the 404.
import { templates } from '../catalogue/index.js';
import type { RenderContext, TemplateCategory, TemplateDefinition, TemplateVersion } from '../model.js';
import { FRAME_SANDBOX, frameDocument } from '../preview-frame.js';
import { getFixture, jsonSchemaFor } from '../registry.js';
import { escapeHtml } from '../render/escape.js';
import { fieldRows } from './field-rows.js';
import { haystackOf, matchesQuery } from './find.js';
import {
  type ColorScheme,
  GALLERY_CONTEXT,
  type PreviewView,
  type PreviewWidth,
  renderGalleryPreview,
} from './preview.js';
import { GALLERY_STYLE } from './style.js';

const CATEGORIES: readonly TemplateCategory[] = ['security', 'transactional', 'notification'];

function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex,nofollow">` +
    `<title>${escapeHtml(title)}</title><style>${GALLERY_STYLE}</style></head>` +
    `<body><div class="wrap">${body}</div><script src="/dev/templates/app.js" defer></script></body></html>`
  );
}

/** A query string from the values that are set; leading `?` when not empty. */
function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

const templateHref = (id: string, params: Record<string, string | undefined> = {}) =>
  `/dev/templates/${encodeURIComponent(id)}${query(params)}`;

const NAV = `<nav class="top"><a href="/dev/templates">Templates</a><a href="/dev/inbox">Dev inbox</a><a href="/docs/">API reference</a></nav>`;

function versionBadges(t: TemplateDefinition, params: Record<string, string | undefined>, current?: string) {
  return t.versions
    .map(
      (v) =>
        `<a class="badge ${v.status}" href="${escapeHtml(templateHref(t.id, { ...params, version: v.version }))}"${v.version === current ? ' aria-current="page"' : ''}>${v.version} ${v.status}</a>`,
    )
    .join('');
}

export interface GalleryIndexOptions {
  /** Filter (`?q=`): every term must appear. */
  q?: string;
  /** `text`: every plain-text part on one page instead of the list. */
  format?: 'html' | 'text';
  /** Carried into the links, so a chosen project stays chosen. */
  project?: string;
}

/** GET /dev/templates: the catalogue by category, no rendered mail (or every text part). */
export function renderGalleryIndexPage(opts: GalleryIndexOptions = {}): string {
  const q = opts.q?.trim() ?? '';
  const format = opts.format ?? 'html';
  const shown = templates.filter((t) => matchesQuery(t, q));
  const carry = { project: opts.project };
  const sections = CATEGORIES.map((category) => {
    const items = shown.filter((t) => t.category === category);
    const body =
      format === 'text'
        ? items
            .flatMap((t) =>
              t.versions.map((v) => {
                const out = renderGalleryPreview(v, getFixture(v), GALLERY_CONTEXT);
                if (!out.ok) throw new Error(`fixture of ${t.id} ${v.version} fails its schema`);
                return (
                  `<article id="${t.id}-${v.version}"><h3><a href="${escapeHtml(templateHref(t.id, { ...carry, version: v.version }))}">${escapeHtml(t.id)}</a> <span class="badge ${v.status}">${v.version} ${v.status}</span></h3>` +
                  `<p class="muted"><code>POST ${escapeHtml(t.routePath)}</code> · Subject: <strong>${escapeHtml(out.message.subject)}</strong></p>` +
                  `<pre class="text">${escapeHtml(out.message.text)}</pre></article>`
                );
              }),
            )
            .join('')
        : `<ul class="templates">${items
            .map(
              (t) =>
                `<li data-search="${escapeHtml(haystackOf(t))}"><a class="id" href="${escapeHtml(templateHref(t.id, carry))}">${escapeHtml(t.id)}</a>` +
                `<span class="versions">${versionBadges(t, carry)}</span>` +
                `<code>POST ${escapeHtml(t.routePath)}</code><span class="muted">${escapeHtml(t.description)}</span></li>`,
            )
            .join('')}</ul>`;
    return `<section class="category" data-category="${category}"${items.length === 0 ? ' hidden' : ''}><h2>${category} <span class="muted count">(${items.length})</span></h2>${body}</section>`;
  });
  const other = format === 'text' ? 'html' : 'text';
  const heading =
    q === ''
      ? `Templates (${templates.length})`
      : `Templates matching “${escapeHtml(q)}” (${shown.length} of ${templates.length})`;
  return page(
    q === '' ? 'Templates' : `Templates: ${q}`,
    `${NAV}<main id="template-index"><h1 id="index-heading">${heading}</h1>` +
      `<p class="muted">Each template is sent with <code>POST /v1/send</code> and its <code>templateId</code>, or through the wrapper route shown. Open one for its fields, an editor for its data, the preview in light and dark, and sending to the dev inbox.</p>` +
      `<form class="search" method="get" action="/dev/templates" role="search">` +
      `<label for="q" class="muted">Filter</label><input type="search" id="q" name="q" value="${escapeHtml(q)}" placeholder="id, route, category or words of the description" autocomplete="off">` +
      (format === 'text' ? '<input type="hidden" name="format" value="text">' : '') +
      (opts.project ? `<input type="hidden" name="project" value="${escapeHtml(opts.project)}">` : '') +
      `<button type="submit">Filter</button></form>` +
      `<p class="muted">Show: <a href="${escapeHtml(`/dev/templates${query({ q, format: other === 'text' ? 'text' : undefined, ...carry })}`)}">${other === 'text' ? 'every plain-text part' : 'the list'}</a></p>` +
      `<p id="no-match"${shown.length > 0 ? ' hidden' : ''}>No template matches. <a href="/dev/templates">Show all</a></p>` +
      `${sections.join('')}</main>`,
  );
}

export interface TemplatePageOptions {
  template: TemplateDefinition;
  version: TemplateVersion;
  /** The project's look (or GALLERY_CONTEXT). */
  context: RenderContext;
  scheme: ColorScheme;
  width: PreviewWidth;
  view: PreviewView;
  projects: { id: string; label: string; send: SendTarget }[];
  projectId?: string | undefined;
  /** Where "Send to dev inbox" goes with the example project chosen. */
  exampleSend: SendTarget;
  /** Why there is no sending at all (no capture transport); undefined when there is. */
  sendingOff?: string | undefined;
}

/** Whether a send through a project can work, and the sentence that says through what. */
export interface SendTarget {
  isPossible: boolean;
  note: string;
}

/** GET /dev/templates/:id: header, preview (rendered from the fixture), editor, send, fields. */
export function renderTemplatePage(o: TemplatePageOptions): string {
  const { template: t, version: v } = o;
  const fixture = getFixture(v);
  const out = renderGalleryPreview(v, fixture, o.context, o.scheme);
  if (!out.ok) throw new Error(`fixture of ${t.id} ${v.version} fails its schema`);
  const m = out.message;
  const carry = { project: o.projectId };
  const title = `${t.id} ${v.version}`;

  const option = (value: string, label: string, send: SendTarget, isSelected: boolean) =>
    `<option value="${escapeHtml(value)}" data-send-note="${escapeHtml(send.note)}"${send.isPossible ? ' data-can-send' : ''}${isSelected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const projectOptions = [
    option('', 'Example (Acme, default look)', o.exampleSend, o.projectId === undefined),
    ...o.projects.map((p) => option(p.id, p.label, p.send, p.id === o.projectId)),
  ].join('');
  const target = o.projects.find((p) => p.id === o.projectId)?.send ?? o.exampleSend;
  const radio = (name: string, value: string, label: string, checked: boolean) =>
    `<label><input type="radio" name="${name}" value="${value}"${checked ? ' checked' : ''}>${label}</label>`;
  const toolbar =
    `<form class="toolbar" id="toolbar" method="get" action="${escapeHtml(templateHref(t.id))}">` +
    `<input type="hidden" name="version" value="${escapeHtml(v.version)}">` +
    `<label class="project">Project <select name="project" id="project">${projectOptions}</select></label>` +
    `<fieldset><legend>Colour scheme</legend>${radio('scheme', 'light', 'Light', o.scheme === 'light')}${radio('scheme', 'dark', 'Dark', o.scheme === 'dark')}</fieldset>` +
    `<fieldset><legend>Width</legend>${radio('width', '375', '375 px', o.width === 375)}${radio('width', '800', '800 px', o.width === 800)}</fieldset>` +
    `<fieldset><legend>Part</legend>${radio('view', 'html', 'HTML', o.view === 'html')}${radio('view', 'text', 'Text', o.view === 'text')}</fieldset>` +
    `<button type="submit" id="apply">Apply</button></form>`;

  const rows = fieldRows(v)
    .map(
      (r) =>
        `<tr data-path="${escapeHtml(r.path)}"${r.isNested ? ' class="nested"' : ''}><td><code>${escapeHtml(r.name)}</code></td>` +
        `<td data-label="Type">${escapeHtml(r.type)}</td><td class="num" data-label="Max length">${r.maxLength ?? ''}</td><td data-label="Required">${escapeHtml(r.required)}</td>` +
        `<td class="default" data-label="Default">${r.default === null ? '' : escapeHtml(r.default)}</td><td class="muted" data-label="Notes">${escapeHtml(r.note)}</td></tr>`,
    )
    .join('');

  const isDraft = v.status === 'draft';
  const sendNote = isDraft
    ? 'Drafts cannot be sent: POST /v1/send sends published versions only.'
    : (o.sendingOff ?? target.note);
  const isSendDisabled = isDraft || o.sendingOff !== undefined || !target.isPossible;

  const body =
    `${NAV}<header><h1>${escapeHtml(t.id)}</h1><p>${escapeHtml(t.description)}</p>` +
    `<dl class="facts"><div><dt>Category</dt><dd>${t.category}</dd></div>` +
    `<div><dt>Route</dt><dd><code>POST ${escapeHtml(t.routePath)}</code></dd></div>` +
    `<div><dt>Operation</dt><dd><code>${escapeHtml(t.operationName)}</code></dd></div>` +
    `<div><dt>Versions</dt><dd>${versionBadges(t, carry, v.version)}</dd></div></dl></header>` +
    `<main id="gallery" class="layout" data-template="${escapeHtml(t.id)}" data-version="${escapeHtml(v.version)}">` +
    `<section class="preview" aria-labelledby="preview-heading"><h2 id="preview-heading">Preview</h2>${toolbar}` +
    `<dl class="envelope"><dt>Subject</dt><dd id="subject">${escapeHtml(m.subject)}</dd><dt>Preheader</dt><dd id="preheader" class="muted">${escapeHtml(m.preheader)}</dd></dl>` +
    // The frame is exactly the chosen width (the mail's viewport, inside its border); where the
    // column is narrower, the area around it scrolls sideways rather than squeezing it.
    `<div class="frame-area"><iframe id="frame" class="frame w${o.width}${o.scheme === 'dark' ? ' dark' : ''}" title="${escapeHtml(`Preview of ${title}`)}" sandbox="${FRAME_SANDBOX}" srcdoc="${escapeHtml(frameDocument(m.html))}"${o.view === 'text' ? ' hidden' : ''}></iframe></div>` +
    `<pre id="text" class="text"${o.view === 'html' ? ' hidden' : ''}>${escapeHtml(m.text)}</pre></section>` +
    `<section class="data" aria-labelledby="data-heading"><h2 id="data-heading">Data</h2>` +
    `<p class="note muted">The <code>data</code> of the request, checked as <code>POST /v1/send</code> checks it (defaults fill what is left out). The preview follows as you type.</p>` +
    `<textarea id="data" spellcheck="false" autocomplete="off" aria-describedby="data-status" aria-label="Template data (JSON)">${escapeHtml(JSON.stringify(fixture, null, 2))}</textarea>` +
    `<p id="data-status" class="status good" role="status">Example data: valid.</p><ul id="errors" class="errors" hidden></ul>` +
    `<div class="row"><button type="button" id="reset" hidden>Reset to the example</button></div>` +
    `<noscript><p class="note">Editing and sending need JavaScript; the toolbar works without it.</p></noscript>` +
    `<h3>Send to the dev inbox</h3><form class="send row" id="send" hidden${isDraft || o.sendingOff !== undefined ? ' data-off' : ''}>` +
    `<label>To <input type="email" id="send-to" name="to" value="jane@example.com" required></label>` +
    `<button type="submit" class="primary" id="send-button"${isSendDisabled ? ' disabled' : ''}>Send to dev inbox</button></form>` +
    `<p class="note muted" id="send-note">${escapeHtml(sendNote)}</p><p id="send-status" class="status" role="status"></p></section>` +
    `<section class="fields" aria-labelledby="fields-heading"><h2 id="fields-heading">Fields of ${escapeHtml(v.version)}</h2>` +
    `<div class="scroll"><table><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Max length</th><th scope="col">Required</th><th scope="col">Default</th><th scope="col">Notes</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>` +
    `<p class="note muted">Text may use <code>{{projectName}}</code>, <code>{{environmentName}}</code> and <code>{{supportEmail}}</code>. No other properties are allowed.</p>` +
    `<details><summary>JSON Schema</summary><pre>${escapeHtml(JSON.stringify(jsonSchemaFor(v), null, 2))}</pre></details></section></main>`;
  return page(`${title} · templates`, body);
}

/** The 404 page of an unknown template, version or project. */
export function renderGalleryNotFoundPage(code: string, message: string): string {
  return page(
    'Not found · templates',
    `${NAV}<main><h1>Not found</h1><p><code>${escapeHtml(code)}</code>: ${escapeHtml(message)}</p><p><a href="/dev/templates">All templates</a></p></main>`,
  );
}
