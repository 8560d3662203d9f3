// The field table of a template page, from the version's fields and its JSON Schema.
import type { Field } from '../blocks/types.js';
import { HTTP_URL_PATTERN } from '../blocks/url.js';
import type { TemplateVersion } from '../model.js';
import { jsonSchemaFor } from '../registry.js';

export interface FieldRow {
  /** JSON Pointer into `data`, as validation errors name it. */
  path: string;
  name: string;
  type: string;
  maxLength: number | null;
  default: string | null;
  /** 'yes', 'no', or when a nested field is required only with its parent. */
  required: string;
  note: string;
  isNested: boolean;
}

type SchemaNode = {
  type?: string;
  format?: string;
  pattern?: string;
  maxLength?: number;
  default?: unknown;
  required?: string[];
  properties?: Record<string, SchemaNode>;
};

function typeOf(s: SchemaNode): string {
  if (s.pattern === HTTP_URL_PATTERN) return 'string (http or https URL)';
  if (s.format) return `string (${s.format})`;
  return s.type ?? 'any';
}

function noteOf(f: Field): string {
  switch (f.kind) {
    case 'text':
      return f.role;
    case 'code':
      return 'one-time code, shown large';
    case 'url':
      return `link: ${f.label}`;
    case 'actionButton':
      return 'button';
    case 'detailsTable':
      return `table: ${f.heading}`;
  }
}

function childNote(f: Field, key: string): string {
  if (f.kind === 'detailsTable') return f.rows.find((r) => r.key === key)?.label ?? '';
  if (f.kind === 'actionButton') return key === 'url' ? 'button link' : 'button label';
  return '';
}

/** One row per property of the version's `data`, nested properties after their object. */
export function fieldRows(version: TemplateVersion): FieldRow[] {
  const schema = jsonSchemaFor(version) as SchemaNode;
  const rows: FieldRow[] = [];
  for (const f of version.fields) {
    const node = schema.properties?.[f.name];
    if (!node) continue;
    const isRequired = schema.required?.includes(f.name) ?? false;
    rows.push({
      path: `/${f.name}`,
      name: f.name,
      type: typeOf(node),
      maxLength: node.maxLength ?? null,
      default: typeof node.default === 'string' ? node.default : null,
      required: isRequired ? 'yes' : 'no',
      note: noteOf(f),
      isNested: false,
    });
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const isChildRequired = node.required?.includes(key) ?? false;
      rows.push({
        path: `/${f.name}/${key}`,
        name: `${f.name}.${key}`,
        type: typeOf(child),
        maxLength: child.maxLength ?? null,
        default: typeof child.default === 'string' ? child.default : null,
        required: isChildRequired ? (isRequired ? 'yes' : `with ${f.name}`) : 'no',
        note: childNote(f, key),
        isNested: true,
      });
    }
  }
  return rows;
}
