// Finding what the gallery shows: a template's version by id (drafts included), and the
// templates a search matches.
import { templates } from '../catalogue/index.js';
import type { TemplateDefinition, TemplateVersion } from '../model.js';
import { TemplateNotFoundError, TemplateVersionNotFoundError } from '../model.js';
import { publishedVersions } from '../registry.js';

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

export const haystackOf = (t: TemplateDefinition) =>
  [t.id, t.routePath, t.operationName, t.category, t.group, t.description].join(' ').toLowerCase();

/** Every whitespace-separated term of the query appears in the id, route, operation, category or description. */
export function matchesQuery(t: TemplateDefinition, query: string): boolean {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = haystackOf(t);
  return terms.every((term) => haystack.includes(term));
}
