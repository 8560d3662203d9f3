// @mailsvc/templates: the catalogue, its JSON Schemas, validation and rendering.

export { BUTTON_LABEL_MAX } from './blocks/action-button.js';
export type { DetailFormat, Field, JsonSchema } from './blocks/types.js';
export { HTTP_URL_PATTERN, isHttpsUrl, isHttpUrl } from './blocks/url.js';
export { templates } from './catalogue/index.js';
export { toFieldErrors } from './field-errors.js';
export {
  type ColorScheme,
  defaultGalleryVersion,
  type FieldRow,
  fieldRows,
  findGalleryVersion,
  GALLERY_CONTEXT,
  type GalleryRender,
  galleryScript,
  matchesQuery,
  type PreviewView,
  type PreviewWidth,
  renderGalleryIndexPage,
  renderGalleryNotFoundPage,
  renderGalleryPreview,
  renderTemplatePage,
  withColorScheme,
} from './gallery.js';
export type {
  FieldError,
  RenderContext,
  RenderedMessage,
  TemplateCategory,
  TemplateDefinition,
  TemplateVersion,
} from './model.js';
export { TemplateNotFoundError, TemplateVersionNotFoundError } from './model.js';
export { FRAME_SANDBOX, frameDocument } from './preview-frame.js';
export {
  compileValidators,
  getFixture,
  getTemplate,
  getVersionForPreview,
  jsonSchemaFor,
  listTemplates,
  publishedVersions,
  render,
  renderVersion,
  validate,
  validateTemplateData,
} from './registry.js';
export { contrastRatio, MIN_TEXT_CONTRAST } from './render/contrast.js';
export { escapeHtml, oneLine } from './render/escape.js';
export type { ValidationResult } from './schema.js';
