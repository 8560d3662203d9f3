// Hand-written, table-based HTML with inline styles, and a plain-text part built from the same
// blocks. Each version is compiled once into a list of block renderers; a render only fills
// escaped values into strings.
import type { DetailsTableField, Field, TextRole } from '../blocks/types.js';
import { isHttpUrl } from '../blocks/url.js';
import type { RenderContext, RenderedMessage, TemplateVersion } from '../model.js';
import { escapeHtml, fillPlaceholders, formatDateTime, oneLine, type PlaceholderValues } from './escape.js';

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const DEFAULT_BRAND = '#2563eb';
const BRAND_PATTERN = /^#[0-9a-fA-F]{6}$/;

interface Values {
  data: Record<string, unknown>;
  ph: PlaceholderValues;
  brand: string;
}

type Block = { html(v: Values): string; text(v: Values): string };

const str = (v: unknown) => (typeof v === 'string' ? v : '');

const TEXT_STYLE: Partial<Record<TextRole, string>> = {
  heading: `margin:0 0 16px;font:700 22px/1.3 ${FONT};color:#111827`,
  paragraph: `margin:0 0 16px;font:16px/1.6 ${FONT};color:#374151`,
  notice: `margin:0 0 16px;padding:12px 16px;border-left:4px solid #d97706;background:#fffbeb;font:15px/1.6 ${FONT};color:#374151`,
  note: `margin:0 0 12px;font:14px/1.6 ${FONT};color:#6b7280`,
};

function textBlock(name: string, role: TextRole): Block {
  const tag = role === 'heading' ? 'h1' : 'p';
  const cls = role === 'note' ? 'muted' : role === 'notice' ? 'fg notice' : 'fg';
  return {
    html: ({ data, ph }) => {
      const value = fillPlaceholders(str(data[name]), ph);
      return value ? `<${tag} class="${cls}" style="${TEXT_STYLE[role]}">${escapeHtml(value)}</${tag}>` : '';
    },
    text: ({ data, ph }) => {
      const value = fillPlaceholders(str(data[name]), ph);
      return value
        ? role === 'heading'
          ? `${value}\n${'='.repeat(Math.min(value.length, 60))}`
          : value
        : '';
    },
  };
}

function codeBlock(name: string): Block {
  return {
    html: ({ data }) =>
      `<p style="margin:0 0 20px"><span class="code" style="display:inline-block;padding:12px 20px;border-radius:6px;background:#f3f4f6;border:1px solid #d1d5db;font:700 28px/1.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:4px;color:#111827">${escapeHtml(str(data[name]))}</span></p>`,
    text: ({ data }) => `    ${str(data[name])}`,
  };
}

function buttonBlock(name: string): Block {
  const button = (data: Record<string, unknown>) => {
    const b = (data[name] ?? {}) as { label?: unknown; url?: unknown };
    return isHttpUrl(b.url) ? { label: str(b.label), url: b.url } : null;
  };
  return {
    html: ({ data, ph, brand }) => {
      const b = button(data);
      if (!b) return '';
      const url = escapeHtml(b.url);
      const label = escapeHtml(fillPlaceholders(b.label, ph));
      return (
        `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 24px"><tr>` +
        `<td align="center" bgcolor="${brand}" style="border-radius:6px;background:${brand}">` +
        `<a href="${url}" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;font:600 16px/1.2 ${FONT};color:#ffffff;text-decoration:none;border-radius:6px">${label}</a>` +
        `</td></tr></table>` +
        `<p class="muted" style="margin:0 0 16px;font:13px/1.5 ${FONT};color:#6b7280">If the button does not work, copy this link into your browser:<br><a href="${url}" style="color:${brand};word-break:break-all">${url}</a></p>`
      );
    },
    text: ({ data, ph }) => {
      const b = button(data);
      return b ? `${fillPlaceholders(b.label, ph)}: ${b.url}` : '';
    },
  };
}

function detailRows(f: DetailsTableField, data: Record<string, unknown>) {
  const values = (data[f.name] ?? {}) as Record<string, unknown>;
  return f.rows
    .filter((r) => typeof values[r.key] === 'string' && values[r.key] !== '')
    .map((r) => ({
      label: r.label,
      value: r.format === 'date-time' ? formatDateTime(str(values[r.key])) : str(values[r.key]),
    }));
}

function detailsBlock(f: DetailsTableField): Block {
  return {
    html: ({ data }) => {
      const rows = detailRows(f, data);
      if (rows.length === 0) return '';
      const cells = rows
        .map(
          (r) =>
            `<tr><td class="muted" style="padding:8px 12px 8px 0;border-top:1px solid #e5e7eb;font:14px/1.5 ${FONT};color:#6b7280;width:40%;vertical-align:top">${escapeHtml(r.label)}</td>` +
            `<td class="fg" style="padding:8px 0;border-top:1px solid #e5e7eb;font:14px/1.5 ${FONT};color:#111827;word-break:break-word">${escapeHtml(r.value)}</td></tr>`,
        )
        .join('');
      return (
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 24px;border-collapse:collapse">` +
        `<tr><td colspan="2" class="fg" style="padding:0 0 8px;font:600 15px/1.4 ${FONT};color:#111827">${escapeHtml(f.heading)}</td></tr>${cells}</table>`
      );
    },
    text: ({ data }) => {
      const rows = detailRows(f, data);
      return rows.length === 0 ? '' : [f.heading, ...rows.map((r) => `  ${r.label}: ${r.value}`)].join('\n');
    },
  };
}

function blockFor(f: Field): Block | null {
  switch (f.kind) {
    case 'text':
      return f.role === 'subject' || f.role === 'preheader' ? null : textBlock(f.name, f.role);
    case 'code':
      return codeBlock(f.name);
    case 'actionButton':
      return buttonBlock(f.name);
    case 'detailsTable':
      return detailsBlock(f);
    case 'url':
      return {
        html: ({ data }) =>
          isHttpUrl(data[f.name])
            ? `<p style="margin:0 0 16px"><a href="${escapeHtml(str(data[f.name]))}">${escapeHtml(f.label)}</a></p>`
            : '',
        text: ({ data }) => (isHttpUrl(data[f.name]) ? `${f.label}: ${str(data[f.name])}` : ''),
      };
  }
}

// Invisible padding after the preheader keeps mail clients from showing body text after it.
const PREHEADER_PAD = '&#8199;&#847;'.repeat(40);

export interface CompiledVersion {
  render(data: Record<string, unknown>, ctx: RenderContext): RenderedMessage;
}

export function compileVersion(v: TemplateVersion): CompiledVersion {
  const blocks = v.fields.map(blockFor).filter((b): b is Block => b !== null);
  const isNotification = v.category === 'notification';
  const isCompact = v.layout === 'compact';
  const cardPadding = isCompact ? '24px 28px' : '32px 40px';

  return {
    render(data, ctx) {
      const ph: PlaceholderValues = {
        projectName: ctx.projectName,
        environmentName: ctx.environmentName,
        supportEmail: ctx.supportEmail ?? '',
      };
      const brand = ctx.brandColor && BRAND_PATTERN.test(ctx.brandColor) ? ctx.brandColor : DEFAULT_BRAND;
      const values: Values = { data, ph, brand };
      const subject = oneLine(fillPlaceholders(str(data.subject), ph));
      const preheader = oneLine(fillPlaceholders(str(data.preheader), ph));
      const project = escapeHtml(ctx.projectName);
      const unsubscribe = isNotification && isHttpUrl(ctx.unsubscribeUrl) ? ctx.unsubscribeUrl : null;

      const header =
        ctx.logoUrl && isHttpUrl(ctx.logoUrl)
          ? `<img src="${escapeHtml(ctx.logoUrl)}" alt="${project}" height="32" style="display:block;height:32px;border:0">`
          : `<span class="fg" style="font:700 18px/1.3 ${FONT};color:#111827">${project}</span>`;
      const footer: string[] = [`Sent by ${project}.`];
      if (ctx.supportEmail) {
        const s = escapeHtml(ctx.supportEmail);
        footer.push(`Questions? <a class="muted" href="mailto:${s}" style="color:#6b7280">${s}</a>`);
      }
      if (unsubscribe) {
        footer.push(
          `You receive this because notifications are on for your ${project} account. <a class="muted" href="${escapeHtml(unsubscribe)}" style="color:#6b7280">Unsubscribe</a>`,
        );
      }

      const body = blocks.map((b) => b.html(values)).join('');
      const html =
        `<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charset="utf-8">` +
        `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="x-apple-disable-message-reformatting">` +
        `<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">` +
        `<title>${escapeHtml(subject)}</title>` +
        `<style>:root{color-scheme:light dark;supported-color-schemes:light dark}` +
        `@media (prefers-color-scheme:dark){.bg{background:#111827!important}.card{background:#1f2937!important}` +
        `.fg{color:#f9fafb!important}.muted{color:#d1d5db!important}.code{background:#374151!important;color:#f9fafb!important;border-color:#4b5563!important}` +
        `.notice{background:#3b2f14!important}}` +
        `@media (max-width:620px){.card{padding:24px 20px!important}}</style></head>` +
        `<body class="bg" style="margin:0;padding:0;background:#f3f4f6;-webkit-text-size-adjust:100%">` +
        `<div style="display:none;max-height:0;max-width:0;overflow:hidden;opacity:0;mso-hide:all">${escapeHtml(preheader)}${PREHEADER_PAD}</div>` +
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="bg" style="background:#f3f4f6"><tr><td align="center" style="padding:24px 12px">` +
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px">` +
        (isCompact ? '' : `<tr><td style="padding:0 4px 16px">${header}</td></tr>`) +
        `<tr><td class="card" style="background:#ffffff;border-radius:8px;padding:${cardPadding}${isCompact ? `;border-top:4px solid ${brand}` : ''}">${body}</td></tr>` +
        `<tr><td class="muted" style="padding:16px 8px;font:12px/1.6 ${FONT};color:#6b7280">${footer.join('<br>')}</td></tr>` +
        `</table></td></tr></table></body></html>`;

      const textParts = blocks.map((b) => b.text(values)).filter((t) => t !== '');
      const textFooter = [`Sent by ${ctx.projectName}.`];
      if (ctx.supportEmail) textFooter.push(`Questions? ${ctx.supportEmail}`);
      if (unsubscribe) textFooter.push(`Unsubscribe: ${unsubscribe}`);
      const text = `${textParts.join('\n\n')}\n\n--\n${textFooter.join('\n')}\n`;

      return { subject, preheader, html, text };
    },
  };
}
