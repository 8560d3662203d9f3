// What the gallery shows of a version: its mail rendered from data as POST /v1/send would, in the
// colour scheme chosen on the page.
import type { FieldError, RenderContext, RenderedMessage, TemplateVersion } from '../model.js';
import { renderVersion, validateTemplateData } from '../registry.js';

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
