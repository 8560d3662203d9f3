// The dev gallery (GET /dev/templates): every template rendered from its fixture.
import { templates } from './catalogue/index.js';
import type { RenderContext } from './model.js';
import { getFixture, renderVersion, validateTemplateData } from './registry.js';
import { escapeHtml } from './render/escape.js';

export const GALLERY_CONTEXT: RenderContext = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'http://127.0.0.1:3000/u/example',
};

export function renderGalleryPage(options: { format?: 'html' | 'text' } = {}): string {
  const format = options.format ?? 'html';
  const sections: string[] = [];
  for (const category of ['security', 'transactional', 'notification'] as const) {
    const items = templates.filter((t) => t.category === category);
    const cards = items.flatMap((t) =>
      t.versions.map((v) => {
        const checked = validateTemplateData(v, getFixture(v));
        if (!checked.ok) throw new Error(`fixture of ${t.id} ${v.version} fails its schema`);
        const out = renderVersion(v, checked.data, GALLERY_CONTEXT);
        const preview =
          format === 'html'
            ? `<iframe sandbox title="${escapeHtml(`${t.id} ${v.version}`)}" srcdoc="${escapeHtml(out.html)}" loading="lazy"></iframe>`
            : `<pre>${escapeHtml(out.text)}</pre>`;
        return (
          `<article id="${t.id}-${v.version}"><h3>${escapeHtml(t.id)} <small>${v.version} · ${v.status}</small></h3>` +
          `<p class="meta"><code>POST ${escapeHtml(t.routePath)}</code> · <code>${t.operationName}</code> · ${escapeHtml(t.description)}</p>` +
          `<p class="subject">Subject: <strong>${escapeHtml(out.subject)}</strong></p>${preview}</article>`
        );
      }),
    );
    sections.push(`<section><h2>${category} (${items.length})</h2>${cards.join('')}</section>`);
  }
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>mailsvc templates</title><style>body{font:14px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:24px;color:#111827}` +
    `nav a{margin-right:12px}article{border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin:16px 0}` +
    `iframe{width:100%;height:560px;border:1px solid #e5e7eb;border-radius:4px}pre{white-space:pre-wrap;background:#f9fafb;padding:12px;border-radius:4px}` +
    `.meta{color:#6b7280;margin:0}small{color:#6b7280;font-weight:400}</style></head><body>` +
    `<h1>Templates (${templates.length})</h1><nav>Show: <a href="?format=html">HTML</a><a href="?format=text">Text</a> · now showing ${format}</nav>` +
    `${sections.join('')}</body></html>`
  );
}
