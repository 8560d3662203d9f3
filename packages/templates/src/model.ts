import type { Field } from './blocks/types.js';

export type TemplateCategory = 'security' | 'transactional' | 'notification';
export type VersionStatus = 'draft' | 'published';

export interface TemplateVersion {
  templateId: string;
  version: string;
  status: VersionStatus;
  category: TemplateCategory;
  /** In render order; subject and preheader are not part of the body. */
  fields: Field[];
  /** Top-level data properties that must be present. */
  required: string[];
  /** Visual variant: `standard`, or `compact` (a tighter layout without the header bar). */
  layout: 'standard' | 'compact';
}

export interface TemplateDefinition {
  id: string;
  group: string;
  routePath: string;
  operationName: string;
  category: TemplateCategory;
  description: string;
  versions: TemplateVersion[];
}

export interface FieldError {
  path: string;
  message: string;
}

export interface RenderContext {
  projectName: string;
  environmentName: string;
  supportEmail?: string | null;
  brandColor?: string | null;
  logoUrl?: string | null;
  /** Required for notification templates: the one-click unsubscribe page. */
  unsubscribeUrl?: string | null;
}

export interface RenderedMessage {
  subject: string;
  preheader: string;
  html: string;
  text: string;
}

export class TemplateNotFoundError extends Error {
  readonly code = 'template_not_found';
  constructor(readonly templateId: string) {
    super(`No template ${templateId}.`);
  }
}

export class TemplateVersionNotFoundError extends Error {
  readonly code = 'template_version_not_found';
  constructor(
    readonly templateId: string,
    readonly version: string,
  ) {
    super(`Template ${templateId} has no published version ${version}.`);
  }
}
