// The dev gallery (/dev/templates): an index of the catalogue, and one page per template with its
// fields, an editor for its data and a live preview. Pages only: the server (packages/server/src/api/routes/dev.ts) finds
// projects, renders, sends and sets the headers (a strict CSP: the one script is
// /dev/templates/app.js, gallery-app.js here, and the preview frame runs no script).
import fs from 'node:fs';
import type { Field } from './blocks/types.js';
import { HTTP_URL_PATTERN } from './blocks/url.js';
import { templates } from './catalogue/index.js';
import type {
  FieldError,
  RenderContext,
  RenderedMessage,
  TemplateCategory,
  TemplateDefinition,
  TemplateVersion,
} from './model.js';
import { TemplateNotFoundError, TemplateVersionNotFoundError } from './model.js';
import { FRAME_SANDBOX, frameDocument } from './preview-frame.js';
import {
  getFixture,
  jsonSchemaFor,
  publishedVersions,
  renderVersion,
  validateTemplateData,
} from './registry.js';
import { escapeHtml } from './render/escape.js';

/** The example project of previews without a project (and of `mailsvc templates render`). */
export const GALLERY_CONTEXT: RenderContext = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'http://127.0.0.1:3000/u/example',
};

export type ColorScheme = 'light' | 'dark';
export type PreviewWidth = 375 | 800;
export type PreviewView = 'html' | 'text';

const CATEGORIES: readonly TemplateCategory[] = ['security', 'transactional', 'notification'];

// ---- finding and rendering

/** The version a gallery page shows without `?version=`: the latest published, else the last. */
export function defaultGalleryVersion(t: TemplateDefinition): TemplateVersion {
  return publishedVersions(t).at(-1) ?? t.versions.at(-1)!;
}

/** Drafts included. Throws TemplateNotFoundError or TemplateVersionNotFoundError. */
export function findGalleryVersion(
  id: string,
  version?: string,
): { template: TemplateDefinition; version: TemplateVersion } {
  const template = templates.find((t) => t.id === id);
  if (!template) throw new TemplateNotFoundError(id);
  if (version === undefined) return { template, version: defaultGalleryVersion(template) };
  const found = template.versions.find((v) => v.version === version);
  if (!found) throw new TemplateVersionNotFoundError(id, version);
  return { template, version: found };
}

const DARK_MEDIA = /@media\s*\(\s*prefers-color-scheme\s*:\s*dark\s*\)/gi;

/**
 * The HTML as a mail client in that scheme shows it, whatever the viewer's own setting: the
 * template's `prefers-color-scheme: dark` rules applied always (dark) or never (light). A frame's
 * own prefers-color-scheme follows the browser, not a toggle on the page.
 */
export function withColorScheme(html: string, scheme: ColorScheme): string {
  return html.replace(DARK_MEDIA, scheme === 'dark' ? '@media all' : '@media not all');
}

export type GalleryRender = { ok: true; message: RenderedMessage } | { ok: false; errors: FieldError[] };

/** Validates like POST /v1/send (defaults filled) and renders in the given scheme. */
export function renderGalleryPreview(
  version: TemplateVersion,
  data: unknown,
  context: RenderContext,
  scheme: ColorScheme = 'light',
): GalleryRender {
  const checked = validateTemplateData(version, data);
  if (!checked.ok) return { ok: false, errors: checked.errors };
  const message = renderVersion(version, checked.data, context);
  return { ok: true, message: { ...message, html: withColorScheme(message.html, scheme) } };
}

// ---- the field table, from the fields and the JSON Schema

export interface FieldRow {
  /** JSON Pointer into `data`, as validation errors name it. */
  path: string;
  name: string;
  type: string;
  maxLength: number | null;
  default: string | null;
  /** 'yes', 'no', or when a nested field is required only with its parent. */
  required: string;
  note: string;
  isNested: boolean;
}

type SchemaNode = {
  type?: string;
  format?: string;
  pattern?: string;
  maxLength?: number;
  default?: unknown;
  required?: string[];
  properties?: Record<string, SchemaNode>;
};

function typeOf(s: SchemaNode): string {
  if (s.pattern === HTTP_URL_PATTERN) return 'string (http or https URL)';
  if (s.format) return `string (${s.format})`;
  return s.type ?? 'any';
}

function noteOf(f: Field): string {
  switch (f.kind) {
    case 'text':
      return f.role;
    case 'code':
      return 'one-time code, shown large';
    case 'url':
      return `link: ${f.label}`;
    case 'actionButton':
      return 'button';
    case 'detailsTable':
      return `table: ${f.heading}`;
  }
}

function childNote(f: Field, key: string): string {
  if (f.kind === 'detailsTable') return f.rows.find((r) => r.key === key)?.label ?? '';
  if (f.kind === 'actionButton') return key === 'url' ? 'button link' : 'button label';
  return '';
}

/** One row per property of the version's `data`, nested properties after their object. */
export function fieldRows(version: TemplateVersion): FieldRow[] {
  const schema = jsonSchemaFor(version) as SchemaNode;
  const rows: FieldRow[] = [];
  for (const f of version.fields) {
    const node = schema.properties?.[f.name];
    if (!node) continue;
    const isRequired = schema.required?.includes(f.name) ?? false;
    rows.push({
      path: `/${f.name}`,
      name: f.name,
      type: typeOf(node),
      maxLength: node.maxLength ?? null,
      default: typeof node.default === 'string' ? node.default : null,
      required: isRequired ? 'yes' : 'no',
      note: noteOf(f),
      isNested: false,
    });
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const isChildRequired = node.required?.includes(key) ?? false;
      rows.push({
        path: `/${f.name}/${key}`,
        name: `${f.name}.${key}`,
        type: typeOf(child),
        maxLength: child.maxLength ?? null,
        default: typeof child.default === 'string' ? child.default : null,
        required: isChildRequired ? (isRequired ? 'yes' : `with ${f.name}`) : 'no',
        note: childNote(f, key),
        isNested: true,
      });
    }
  }
  return rows;
}

// ---- search

const haystackOf = (t: TemplateDefinition) =>
  [t.id, t.routePath, t.operationName, t.category, t.group, t.description].join(' ').toLowerCase();

/** Every whitespace-separated term of the query appears in the id, route, operation, category or description. */
export function matchesQuery(t: TemplateDefinition, query: string): boolean {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = haystackOf(t);
  return terms.every((term) => haystack.includes(term));
}

// ---- pages

const STYLE = `
:root{color-scheme:light dark;--line:#8886;--soft:#8881;--accent:#2563eb;--bad:#b91c1c;--good:#15803d}
@media (prefers-color-scheme:dark){:root{--accent:#60a5fa;--bad:#fca5a5;--good:#86efac}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:1440px;margin:0 auto;padding:12px 20px 48px}
@media (max-width:600px){.wrap{padding:8px 12px 40px}}
a{color:var(--accent)}
nav.top{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:14px;padding:4px 0 8px;border-bottom:1px solid var(--line);margin-bottom:12px}
h1{font-size:1.45rem;line-height:1.25;margin:.25rem 0 .35rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:0 0 .5rem}
h3{font-size:1rem;margin:1.25rem 0 .4rem}
code,pre,textarea{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{overflow-wrap:anywhere}
.muted{color:color-mix(in srgb,currentColor 68%,transparent)}
.badge{display:inline-block;padding:0 7px;border:1px solid var(--line);border-radius:999px;font-size:12px;line-height:20px;white-space:nowrap;text-decoration:none}
.badge.draft{border-style:dashed}
a.badge[aria-current]{background:var(--accent);border-color:var(--accent);color:#fff}
@media (prefers-color-scheme:dark){a.badge[aria-current]{color:#111827}}
input,select,button,textarea{font:inherit;color:inherit}
input[type=search],input[type=email],select{padding:6px 9px;border:1px solid var(--line);border-radius:6px;background:Canvas;max-width:100%}
button{padding:6px 12px;border:1px solid var(--line);border-radius:6px;background:var(--soft);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
@media (prefers-color-scheme:dark){button.primary{color:#111827}}
button:disabled{opacity:.55;cursor:not-allowed}
form.search{display:flex;gap:8px;flex-wrap:wrap;margin:.75rem 0 .25rem}
form.search input{flex:1 1 16rem;max-width:32rem}
section.category{margin-top:1.5rem}
ul.templates{list-style:none;margin:0;padding:0}
ul.templates li{display:grid;grid-template-columns:minmax(10rem,14rem) 11rem minmax(13rem,19rem) minmax(0,1fr);gap:2px 16px;padding:7px 0;border-top:1px solid var(--line);align-items:baseline}
ul.templates .id{font-weight:600;overflow-wrap:anywhere}
ul.templates .versions{display:flex;gap:4px;flex-wrap:wrap}
@media (max-width:760px){ul.templates li{grid-template-columns:auto minmax(0,1fr);gap:2px 10px}
ul.templates li>:nth-child(n+3){grid-column:1/-1}}
.facts{display:flex;flex-wrap:wrap;gap:4px 20px;margin:.25rem 0 0;font-size:14px}
.facts div{display:flex;gap:6px;align-items:baseline;flex-wrap:wrap;min-width:0}
.facts dt{font-weight:600}
.facts dd{margin:0;min-width:0}
.layout{display:grid;gap:20px 28px;grid-template-columns:minmax(0,1fr);margin-top:16px}
.layout>section{min-width:0}
@media (min-width:1100px){.layout{grid-template-columns:minmax(320px,1fr) minmax(0,802px)}
.layout>.preview{grid-column:2;grid-row:1}.layout>.data{grid-column:1;grid-row:1}.layout>.fields{grid-column:1/-1;grid-row:2}}
.toolbar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:0 0 10px}
.toolbar fieldset{display:inline-flex;border:1px solid var(--line);border-radius:6px;padding:0;margin:0;overflow:hidden}
.toolbar legend{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.toolbar fieldset label{display:inline-flex;align-items:center;gap:4px;padding:4px 10px;cursor:pointer;font-size:14px}
.toolbar fieldset label+label{border-left:1px solid var(--line)}
.toolbar fieldset label:has(input:checked){background:var(--soft);font-weight:600}
.toolbar .project{display:inline-flex;gap:6px;align-items:center;font-size:14px;min-width:0;max-width:100%}
.toolbar .project select{min-width:0;max-width:22rem}
@media (max-width:600px){.toolbar .project{flex:1 1 100%}.toolbar .project select{flex:1 1 auto;max-width:none}}
.envelope{margin:0 0 10px;font-size:14px;display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 10px}
.envelope dt{font-weight:600}
.envelope dd{margin:0;overflow-wrap:anywhere}
.frame-area{overflow-x:auto;max-width:100%}
iframe.frame{display:block;box-sizing:content-box;width:800px;height:760px;border:1px solid var(--line);border-radius:8px;background:#fff}
iframe.frame.dark{background:#111827}
iframe.frame.w375{width:375px}
iframe.frame.w800{width:800px}
@media (max-width:600px){iframe.frame{height:640px}}
pre.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;padding:12px 14px;border:1px solid var(--line);border-radius:8px;max-width:800px}
textarea{display:block;width:100%;min-height:20rem;padding:10px;border:1px solid var(--line);border-radius:8px;background:Canvas;tab-size:2;resize:vertical}
textarea[aria-invalid=true]{border-color:var(--bad)}
.status{margin:.4rem 0;font-size:14px}
.status.bad,.errors{color:var(--bad)}
.status.good{color:var(--good)}
.errors{margin:.25rem 0;padding-left:1.2rem;font-size:14px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.send label{display:flex;flex-direction:column;gap:2px;font-size:14px;flex:1 1 14rem;min-width:0}
.note{font-size:13px;margin:.4rem 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;vertical-align:top;padding:6px 10px 6px 0;border-top:1px solid var(--line)}
th{font-weight:600;white-space:nowrap}
td.num{text-align:right;white-space:nowrap}
tr.nested td:first-child{padding-left:1.1rem}
tr.has-error td{background:color-mix(in srgb,var(--bad) 14%,transparent)}
td.default{min-width:12rem}
@media (max-width:640px){.fields table,.fields tbody,.fields tr,.fields td{display:block}
.fields thead{display:none}
.fields tr{display:flex;flex-wrap:wrap;gap:0 12px;padding:6px 0;border-top:1px solid var(--line)}
.fields td:first-child,.fields td.default,.fields td[data-label=Notes]{flex-basis:100%}
.fields tr.nested{padding-left:1.1rem}
.fields td{border:0;padding:0;min-width:0}
.fields tr.nested td:first-child{padding-left:0}
.fields td:empty{display:none}
.fields td.num{text-align:left}
.fields td[data-label]::before{content:attr(data-label) ": ";color:color-mix(in srgb,currentColor 68%,transparent)}}
details pre{white-space:pre-wrap;overflow-wrap:anywhere;padding:10px;border:1px solid var(--line);border-radius:8px;max-height:32rem;overflow:auto}
[hidden]{display:none!important}
`;

function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex,nofollow">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
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

let script: string | undefined;
/** The pages' one script (gallery-app.js), served as /dev/templates/app.js. */
export function galleryScript(): string {
  script ??= fs.readFileSync(new URL('./gallery-app.js', import.meta.url), 'utf8');
  return script;
}
