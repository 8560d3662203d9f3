// Template data typed by template and version, from the generated catalogue types: a send names
// a template id of the catalogue, and its `data` is that template version's (required fields
// required, unknown fields refused) — the core's default version is the latest published, the
// wrapper's v1.
import type { TemplateData, TemplateLatestVersion } from './generated/templates.js';

/** A template id of the catalogue this client was built with. */
export type TemplateId = keyof TemplateData;

/** The published versions of a template. */
export type TemplateVersionOf<T extends TemplateId> = keyof TemplateData[T] & string;

/** The `data` of a template version (default: the latest published). */
export type TemplateDataOf<
  T extends TemplateId,
  V extends TemplateVersionOf<T> = TemplateLatestVersion[T] & TemplateVersionOf<T>,
> = TemplateData[T][V];

/**
 * `data` with the version that types it: no `templateVersion` → the default version's data;
 * a named version → that version's data.
 */
export type VersionedData<T extends TemplateId, Default extends TemplateVersionOf<T>> =
  | { templateVersion?: undefined; data: TemplateData[T][Default] }
  | { [V in TemplateVersionOf<T>]: { templateVersion: V; data: TemplateData[T][V] } }[TemplateVersionOf<T>];

export type { TemplateData, TemplateLatestVersion };
