// Per-contact placeholders of bulk sends (DESIGN.md §7): {{contact.name}}, {{contact.email}} and
// {{contact.customFields.KEY}} in the text fields of a job's template data, filled for each
// contact at render time. The filled text is data like any other: the renderer escapes it. A
// missing value renders empty; line breaks and control characters become spaces (a subject is a
// header), bidirectional and invisible characters are dropped, and a `{{` inside a value is
// written `{ {` so the renderer never reads a contact's text as one of its own placeholders
// ({{projectName}}…); a filled field is cut to its field's maxLength.
import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';
import { BUTTON_LABEL_MAX, type Field, type TemplateVersion } from '@mailsvc/templates';
import type { PlaceholderContact } from '../../db/repositories/queue.js';
import type { CustomFieldValue } from '../../db/schema.js';

export type { PlaceholderContact } from '../../db/repositories/queue.js';

const PLACEHOLDER = /\{\{\s*contact\.(name|email|customFields\.([A-Za-z_][A-Za-z0-9_-]{0,63}))\s*\}\}/g;
// C0 and C1 controls, DEL, line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const UNSAFE = new RegExp(`[${UNSAFE_DISPLAY_CHARACTERS}]`, 'gu');

/** Whether a text holds at least one placeholder (the template data then needs the contact). */
export function hasContactPlaceholder(text: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.test(text);
}

function placeholderValue(contact: PlaceholderContact, field: string, key: string | undefined): string {
  let value: CustomFieldValue | null | undefined;
  if (field === 'name') value = contact.name;
  else if (field === 'email') value = contact.email;
  else if (key !== undefined && Object.hasOwn(contact.customFields, key)) value = contact.customFields[key];
  if (value === null || value === undefined) return '';
  return String(value).replace(CONTROL, ' ').replace(UNSAFE, '').replaceAll('{{', '{ {');
}

function fill(text: string, contact: PlaceholderContact, maxLength: number): string {
  if (!text.includes('{{')) return text;
  const filled = text.replace(PLACEHOLDER, (_m, field: string, key: string | undefined) =>
    placeholderValue(contact, field, key),
  );
  return [...filled].length > maxLength ? [...filled].slice(0, maxLength).join('') : filled;
}

/**
 * A copy of `data` with the contact's values in the text fields of `version` and the label of its
 * action button; a URL is never filled.
 */
export function fillContactPlaceholders(
  version: TemplateVersion,
  data: Record<string, unknown>,
  contact: PlaceholderContact,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  for (const f of version.fields as Field[]) {
    const value = out[f.name];
    if (f.kind === 'text' && typeof value === 'string') {
      out[f.name] = fill(value, contact, f.maxLength);
    } else if (f.kind === 'actionButton' && value && typeof value === 'object') {
      const button = value as Record<string, unknown>;
      if (typeof button.label === 'string') {
        out[f.name] = { ...button, label: fill(button.label, contact, BUTTON_LABEL_MAX) };
      }
    }
  }
  return out;
}

/** Anything that starts like a contact placeholder, to tell a typo from a placeholder. */
const CONTACT_MENTION = /\{\{\s*contact\b[^}]*\}\}/g;
const EXACT_PLACEHOLDER = new RegExp(`^${PLACEHOLDER.source}$`);
const PLACEHOLDER_HELP = 'use {{contact.name}}, {{contact.email}} or {{contact.customFields.KEY}}';

/**
 * The problems with a job's contact placeholders, checked once with the template data: a
 * misspelt one (`{{contact.nme}}`) would go out as written to every contact, and a URL is never
 * filled. Paths are under `basePath` (/templateData or /data).
 */
export function contactPlaceholderProblems(
  version: TemplateVersion,
  data: Record<string, unknown>,
  basePath: string,
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const checkText = (text: unknown, path: string) => {
    if (typeof text !== 'string' || !text.includes('{{')) return;
    for (const [mention] of text.matchAll(CONTACT_MENTION)) {
      if (!EXACT_PLACEHOLDER.test(mention))
        problems.push({ path, message: `unknown placeholder ${mention}: ${PLACEHOLDER_HELP}` });
    }
  };
  const checkUrl = (url: unknown, path: string) => {
    if (typeof url === 'string' && CONTACT_MENTION.test(url)) {
      problems.push({
        path,
        message: 'contact placeholders are not filled in URLs; link to a page that knows the user',
      });
    }
    CONTACT_MENTION.lastIndex = 0;
  };
  for (const f of version.fields as Field[]) {
    const value = data[f.name];
    const path = `${basePath}/${f.name}`;
    if (f.kind === 'text') checkText(value, path);
    else if (f.kind === 'url') checkUrl(value, path);
    else if (f.kind === 'actionButton' && value && typeof value === 'object') {
      const button = value as Record<string, unknown>;
      checkText(button.label, `${path}/label`);
      checkUrl(button.url, `${path}/url`);
    }
  }
  return problems;
}
