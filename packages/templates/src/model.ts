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
  /** The project's brand colour, `#rrggbb`; white button text on it reaches 4.5:1 (checked when set). */
  brandColor?: string | null;
  /** An https URL of the project's logo, shown in the header instead of its name. */
  logoUrl?: string | null;
  /** The sender's postal address, shown in the footer of notification mail. */
  postalAddress?: string | null;
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
