// Hand-written, table-based HTML with inline styles, and a plain-text part built from the same
// blocks. Each version is compiled once into a list of block renderers; a render only fills
// escaped values into strings.
import type { DetailsTableField, Field, TextRole } from '../blocks/types.js';
import { isHttpsUrl, isHttpUrl } from '../blocks/url.js';
import type { RenderContext, RenderedMessage, TemplateVersion } from '../model.js';
import { contrastRatio, MIN_TEXT_CONTRAST } from './contrast.js';
import { escapeHtml, fillPlaceholders, formatDateTime, oneLine, type PlaceholderValues } from './escape.js';

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const DEFAULT_BRAND = '#2563eb';
const BRAND_PATTERN = /^#[0-9a-fA-F]{6}$/;

// Colours, with their WCAG contrast where text sits on them. Light: page #f3f4f6, card #ffffff;
// dark (the <style> block): page #111827, card #1f2937. Every text colour reaches 4.5:1.
//   light: heading #111827 17.7:1, body #374151 10.3:1, muted #6b7280 4.8:1 on the card;
//          footer #4b5563 6.9:1 on the page; links in the brand colour (white on it ≥ 4.5:1,
//          so it reaches 4.5:1 on the card too; the default #2563eb 5.2:1).
//   dark:  text #f9fafb 14.1:1, muted #9ca3af 5.8:1 on the card and 7.0:1 on the page,
//          links #93c5fd 8.1:1 (the brand colour is dark: it is chosen for white text on it).
const FOOTER_COLOR = '#4b5563';
const RULE_COLOR = '#e5e7eb';
const DARK_STYLES =
  '.bg{background:#111827!important}.card{background:#1f2937!important}' +
  '.fg{color:#f9fafb!important}.muted{color:#9ca3af!important}.link{color:#93c5fd!important}' +
  '.rule{border-color:#374151!important}' +
  '.code{background:#111827!important;color:#f9fafb!important;border-color:#374151!important}' +
  '.notice{background:#422006!important;border-color:#f59e0b!important}' +
  // A logo is drawn for the light page most mail is read on: in dark mode it sits on a light chip.
  '.logo{background:#f9fafb!important;padding:4px 8px!important;border-radius:6px!important}';

/** The project's colour when white button text on it is readable (4.5:1), else the default. */
function brandColorOf(value: string | null | undefined): string {
  return value && BRAND_PATTERN.test(value) && contrastRatio(value, '#ffffff') >= MIN_TEXT_CONTRAST
    ? value
    : DEFAULT_BRAND;
}

/** The postal address's lines: CR LF or LF separated, trimmed, blank lines dropped. */
function addressLines(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(/\r\n?|\n/)
    .map((l) => oneLine(l))
    .filter((l) => l !== '');
}

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

/**
 * A URL shown as text, with a line-break opportunity (<wbr>) after each / . ? & = and every 24
 * characters: clients without word-break (Yahoo) wrap it there instead of widening the message;
 * word-break:break-all does it where <wbr> is not supported (Outlook for Windows, Gmail for iOS).
 */
export function breakableUrl(url: string): string {
  const parts = url.match(/[^/.?&=]{1,24}[/.?&=]?|[/.?&=]/g) ?? [];
  return parts.map(escapeHtml).join('<wbr>');
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
        // Outlook for Windows ignores an <a>'s padding: the cell carries it there (mso-padding-alt).
        `<td align="center" bgcolor="${brand}" style="border-radius:6px;background:${brand};mso-padding-alt:12px 24px">` +
        `<a href="${url}" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;mso-padding-alt:0;font:600 16px/1.2 ${FONT};color:#ffffff;text-decoration:none;border-radius:6px">${label}</a>` +
        `</td></tr></table>` +
        `<p class="muted" style="margin:0 0 16px;font:13px/1.5 ${FONT};color:#6b7280">If the button does not work, copy this link into your browser:<br><a class="link" href="${url}" style="color:${brand};word-break:break-all">${breakableUrl(b.url)}</a></p>`
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
            `<tr><td class="muted rule" style="padding:8px 12px 8px 0;border-top:1px solid ${RULE_COLOR};font:14px/1.5 ${FONT};color:#6b7280;width:40%;vertical-align:top">${escapeHtml(r.label)}</td>` +
            `<td class="fg rule" style="padding:8px 0;border-top:1px solid ${RULE_COLOR};font:14px/1.5 ${FONT};color:#111827;word-break:break-word">${escapeHtml(r.value)}</td></tr>`,
        )
        .join('');
      return (
        `<h2 class="fg" style="margin:0 0 8px;font:600 15px/1.4 ${FONT};color:#111827">${escapeHtml(f.heading)}</h2>` +
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 24px;border-collapse:collapse">${cells}</table>`
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
        html: ({ data, brand }) =>
          isHttpUrl(data[f.name])
            ? `<p style="margin:0 0 16px;font:16px/1.6 ${FONT}"><a class="link" href="${escapeHtml(str(data[f.name]))}" style="color:${brand}">${escapeHtml(f.label)}</a></p>`
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
        // A project without a support address: "contact {{supportEmail}}" reads "contact Acme support".
        supportEmail: ctx.supportEmail || `${ctx.projectName} support`,
      };
      const brand = brandColorOf(ctx.brandColor);
      const values: Values = { data, ph, brand };
      const subject = oneLine(fillPlaceholders(str(data.subject), ph));
      const preheader = oneLine(fillPlaceholders(str(data.preheader), ph));
      const unsubscribe = isNotification && isHttpUrl(ctx.unsubscribeUrl) ? ctx.unsubscribeUrl : null;
      const address = isNotification ? addressLines(ctx.postalAddress) : [];

      const header = headerHtml(ctx);
      const footerStyle = `margin:0 0 8px;font:13px/1.6 ${FONT};color:${FOOTER_COLOR}`;
      const footer = footerHtml(ctx, unsubscribe, address, isNotification);

      const body = blocks.map((b) => b.html(values)).join('');
      const html =
        `<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charset="utf-8">` +
        `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="x-apple-disable-message-reformatting">` +
        `<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">` +
        `<title>${escapeHtml(subject)}</title>` +
        `<style>:root{color-scheme:light dark;supported-color-schemes:light dark}` +
        // iOS turns dates and addresses into blue links; they keep the colour of the text around them.
        `a[x-apple-data-detectors]{color:inherit!important;text-decoration:none!important;font:inherit!important}` +
        `@media (prefers-color-scheme:dark){${DARK_STYLES}}` +
        `@media (max-width:620px){.card{padding:24px 20px!important}}</style></head>` +
        `<body class="bg" style="margin:0;padding:0;background:#f3f4f6;-webkit-text-size-adjust:100%">` +
        `<div style="display:none;max-height:0;max-width:0;overflow:hidden;opacity:0;mso-hide:all">${escapeHtml(preheader)}${PREHEADER_PAD}</div>` +
        // Webmail drops <html> and <head>: this wrapper keeps the language and names the message for
        // screen readers among the client's own interface.
        `<div role="article" aria-roledescription="email" aria-label="${escapeHtml(subject)}" lang="en" dir="ltr">` +
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="bg" style="background:#f3f4f6"><tr><td align="center" style="padding:24px 12px">` +
        // Outlook for Windows ignores max-width: a 600 px table that only it reads holds the column
        // (what MJML emits), so the message does not spread over the whole reading pane.
        '<!--[if mso]><table role="presentation" width="600" align="center" cellpadding="0" cellspacing="0" border="0" style="width:600px"><tr><td><![endif]-->' +
        `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px">` +
        (isCompact ? '' : `<tr><td style="padding:0 4px 16px">${header}</td></tr>`) +
        `<tr><td class="card" style="background:#ffffff;border-radius:8px;padding:${cardPadding}${isCompact ? `;border-top:4px solid ${brand}` : ''}">${body}</td></tr>` +
        `<tr><td style="padding:20px 8px 16px">${footer.map((f) => `<p class="muted" style="${footerStyle}">${f}</p>`).join('')}</td></tr>` +
        '</table><!--[if mso]></td></tr></table><![endif]--></td></tr></table></div></body></html>';

      const textParts = blocks.map((b) => b.text(values)).filter((t) => t !== '');
      const footerText = textFooter(ctx, unsubscribe, address, isNotification);
      const text = `${textParts.join('\n\n')}\n\n--\n${footerText}\n`;

      return { subject, preheader, html, text };
    },
  };
}

/**
 * The project's logo, else its name. The height keeps the logo's line when images are blocked (its
 * alt text shows there); no width attribute, so every client (Outlook for Windows reads
 * attributes) keeps the image's own aspect ratio, at most 160 px wide.
 */
function headerHtml(ctx: RenderContext): string {
  const project = escapeHtml(ctx.projectName);
  return isHttpsUrl(ctx.logoUrl)
    ? `<img class="logo" src="${escapeHtml(ctx.logoUrl)}" alt="${project}" height="32" style="display:block;width:auto;max-width:160px;height:32px;border:0;font:700 18px/32px ${FONT};color:#111827">`
    : `<span class="fg" style="font:700 18px/1.3 ${FONT};color:#111827;word-break:break-word">${project}</span>`;
}

/** The footer's paragraphs: who sent it, why a notification came and how to stop it, the address. */
function footerHtml(
  ctx: RenderContext,
  unsubscribe: string | null,
  address: string[],
  isNotification: boolean,
): string[] {
  const project = escapeHtml(ctx.projectName);
  const footerLink = (href: string, label: string) =>
    `<a class="muted" href="${href}" style="color:${FOOTER_COLOR};text-decoration:underline">${label}</a>`;
  let sentBy = `Sent by ${project}.`;
  if (ctx.supportEmail) {
    const s = escapeHtml(ctx.supportEmail);
    sentBy += ` Questions? ${footerLink(`mailto:${s}`, s)}`;
  }
  const footer = [sentBy];
  if (isNotification) {
    footer.push(
      `You receive this because notifications are on for your ${project} account.` +
        (unsubscribe ? ` ${footerLink(escapeHtml(unsubscribe), 'Unsubscribe')}` : ''),
    );
  }
  if (address.length > 0) footer.push(address.map(escapeHtml).join('<br>'));
  return footer;
}

/** The footer's paragraphs as text, in the HTML's order, a blank line between them. */
function textFooter(
  ctx: RenderContext,
  unsubscribe: string | null,
  address: string[],
  isNotification: boolean,
): string {
  const sentByText = [`Sent by ${ctx.projectName}.`];
  if (ctx.supportEmail) sentByText.push(`Questions? ${ctx.supportEmail}`);
  const paragraphs = [sentByText];
  if (isNotification) {
    const why = [`You receive this because notifications are on for your ${ctx.projectName} account.`];
    if (unsubscribe) why.push(`Unsubscribe: ${unsubscribe}`);
    paragraphs.push(why);
  }
  if (address.length > 0) paragraphs.push(address);
  return paragraphs.map((p) => p.join('\n')).join('\n\n');
}
