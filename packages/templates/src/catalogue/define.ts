import { actionButton } from '../blocks/action-button.js';
import { code } from '../blocks/code.js';
import { text } from '../blocks/text.js';
import type { DetailsTableField, Field } from '../blocks/types.js';
import type { TemplateCategory, TemplateDefinition, TemplateVersion, VersionStatus } from '../model.js';

export interface TemplateCopy {
  subject: string;
  preheader: string;
  heading: string;
  intro: string;
  /** A required one-time code, shown large. */
  code?: true;
  securityNote?: string;
  details?: DetailsTableField;
  notice?: string;
  button?: { label: string; isUrlRequired?: boolean };
  footerNote?: string;
}

/** Fields in render order: subject and preheader first (not in the body), then the body blocks. */
export function fieldsFrom(copy: TemplateCopy): Field[] {
  const fields: Field[] = [
    text('subject', 'subject', copy.subject),
    text('preheader', 'preheader', copy.preheader),
    text('heading', 'heading', copy.heading),
    text('intro', 'paragraph', copy.intro),
  ];
  if (copy.code) fields.push(code());
  if (copy.securityNote !== undefined) fields.push(text('securityNote', 'note', copy.securityNote));
  if (copy.details) fields.push(copy.details);
  if (copy.notice !== undefined) fields.push(text('notice', 'notice', copy.notice));
  if (copy.button)
    fields.push(actionButton(copy.button.label, { isUrlRequired: copy.button.isUrlRequired ?? false }));
  if (copy.footerNote !== undefined) fields.push(text('footerNote', 'note', copy.footerNote));
  return fields;
}

/** In field order: the code, a table with required keys, a button whose URL is required. */
function requiredOf(copy: TemplateCopy): string[] {
  const required: string[] = [];
  if (copy.code) required.push('code');
  if (copy.details && copy.details.required.length > 0) required.push(copy.details.name);
  if (copy.button?.isUrlRequired) required.push('actionButton');
  return required;
}

const pascal = (id: string) =>
  id
    .split('-')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

export interface ExtraVersion {
  version: string;
  status: VersionStatus;
  copy: TemplateCopy;
  layout?: TemplateVersion['layout'];
}

export function defineTemplate(
  group: string,
  id: string,
  category: TemplateCategory,
  description: string,
  copy: TemplateCopy,
  extra: ExtraVersion[] = [],
): TemplateDefinition {
  const version = (
    v: string,
    status: VersionStatus,
    c: TemplateCopy,
    layout: TemplateVersion['layout'],
  ): TemplateVersion => ({
    templateId: id,
    version: v,
    status,
    category,
    fields: fieldsFrom(c),
    required: requiredOf(c),
    layout,
  });
  return {
    id,
    group,
    routePath: `/${group}/${id}`,
    operationName: `send${pascal(id)}`,
    category,
    description,
    versions: [
      version('v1', 'published', copy, 'standard'),
      ...extra.map((e) => version(e.version, e.status, e.copy, e.layout ?? 'standard')),
    ],
  };
}
