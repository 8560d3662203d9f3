// Lookup, validation and rendering over the catalogue. Every version's renderer is compiled once at
// load; its validator when first used, or all of them at once by compileValidators(), which the
// processes that validate (the API, the wrapper) call at start-up so no request pays for it. The
// delivery worker renders data validated at the accept and never compiles one (0.3 s of its start).
import { templates } from './catalogue/index.js';
import { fixtureFor } from './fixtures.js';
import {
  type RenderContext,
  type RenderedMessage,
  type TemplateDefinition,
  TemplateNotFoundError,
  type TemplateVersion,
  TemplateVersionNotFoundError,
} from './model.js';
import { type CompiledVersion, compileVersion } from './render/render.js';
import { buildJsonSchema, compileAll, type ValidationResult, validateTemplateData } from './schema.js';

const byId = new Map(templates.map((t) => [t.id, t]));
const compiled = new Map<TemplateVersion, CompiledVersion>();
for (const t of templates) for (const v of t.versions) compiled.set(v, compileVersion(v));

/** Compiles every version's JSON Schema validator now (start-up), not at its first request. */
export function compileValidators(): void {
  compileAll(templates.flatMap((t) => t.versions));
}

export function listTemplates(): readonly TemplateDefinition[] {
  return templates;
}

/** Published versions only, newest last. */
export function publishedVersions(t: TemplateDefinition): TemplateVersion[] {
  return t.versions.filter((v) => v.status === 'published');
}

/**
 * A published version: the one named, or without a name the latest published. Throws
 * TemplateNotFoundError for an unknown id and TemplateVersionNotFoundError for an unknown or
 * draft version.
 */
export function getTemplate(
  id: string,
  version?: string,
): { template: TemplateDefinition; version: TemplateVersion } {
  const template = byId.get(id);
  if (!template) throw new TemplateNotFoundError(id);
  const published = publishedVersions(template);
  const found = version === undefined ? published.at(-1) : published.find((v) => v.version === version);
  if (!found) throw new TemplateVersionNotFoundError(id, version ?? '(latest)');
  return { template, version: found };
}

/** Any version, drafts included (previews and the gallery). */
export function getVersionForPreview(id: string, version: string): TemplateVersion {
  const template = byId.get(id);
  if (!template) throw new TemplateNotFoundError(id);
  const found = template.versions.find((v) => v.version === version);
  if (!found) throw new TemplateVersionNotFoundError(id, version);
  return found;
}

export function validate(version: TemplateVersion, data: unknown): ValidationResult {
  return validateTemplateData(version, data);
}
export { validateTemplateData };

export function jsonSchemaFor(version: TemplateVersion) {
  return buildJsonSchema(version);
}

export function getFixture(version: TemplateVersion): Record<string, unknown> {
  return fixtureFor(version);
}

/** Renders already-validated data (defaults filled). Use validateTemplateData first. */
export function renderVersion(
  version: TemplateVersion,
  data: Record<string, unknown>,
  context: RenderContext,
): RenderedMessage {
  return compiled.get(version)!.render(data, context);
}

/** Validates (filling defaults) and renders; throws on invalid data. */
export function render(
  templateId: string,
  version: string | undefined,
  data: unknown,
  context: RenderContext,
): RenderedMessage {
  const { version: v } = getTemplate(templateId, version);
  const result = validateTemplateData(v, data);
  if (!result.ok) {
    throw new Error(
      `Invalid data for ${templateId}: ${result.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
    );
  }
  return renderVersion(v, result.data, context);
}
