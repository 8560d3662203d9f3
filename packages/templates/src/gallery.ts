// The dev gallery (/dev/templates): an index of the catalogue, and one page per template with its
// fields, an editor for its data and a live preview. Pages only: the server (packages/server/src/dev/gallery/gallery-routes.ts) finds
// projects, renders, sends and sets the headers (a strict CSP: the one script is
// /dev/templates/app.js, gallery-app.js here, and the preview frame runs no script).
//
// The pieces, in gallery/: find.ts (a version by id, search), preview.ts (rendering in a colour
// scheme), field-rows.ts (the field table), pages.ts (the HTML pages) and style.ts (their CSS).
import fs from 'node:fs';

export { type FieldRow, fieldRows } from './gallery/field-rows.js';
export { defaultGalleryVersion, findGalleryVersion, matchesQuery } from './gallery/find.js';
export {
  type GalleryIndexOptions,
  renderGalleryIndexPage,
  renderGalleryNotFoundPage,
  renderTemplatePage,
  type SendTarget,
  type TemplatePageOptions,
} from './gallery/pages.js';
export {
  type ColorScheme,
  GALLERY_CONTEXT,
  type GalleryRender,
  type PreviewView,
  type PreviewWidth,
  renderGalleryPreview,
  withColorScheme,
} from './gallery/preview.js';

let script: string | undefined;
/** The pages' one script (gallery-app.js), served as /dev/templates/app.js. */
export function galleryScript(): string {
  script ??= fs.readFileSync(new URL('./gallery-app.js', import.meta.url), 'utf8');
  return script;
}
