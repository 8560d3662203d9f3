import { findSizeProblems } from '@mailsvc/contract/size-bounds';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { actionButtonSchema } from './blocks/action-button.js';
import { codeSchema } from './blocks/code.js';
import { detailsTableSchema } from './blocks/details-table.js';
import { textSchema } from './blocks/text.js';
import type { Field, JsonSchema } from './blocks/types.js';
import { urlSchema } from './blocks/url.js';
import { toFieldErrors } from './field-errors.js';
import type { FieldError, TemplateVersion } from './model.js';

function fieldSchema(f: Field): JsonSchema {
  switch (f.kind) {
    case 'text':
      return textSchema(f);
    case 'code':
      return codeSchema(f);
    case 'url':
      return urlSchema();
    case 'actionButton':
      return actionButtonSchema(f);
    case 'detailsTable':
      return detailsTableSchema(f);
  }
}

/** The JSON Schema of a version's `data`: strict, with defaults and formats. */
export function buildJsonSchema(v: TemplateVersion): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of v.fields) properties[f.name] = fieldSchema(f);
  return {
    $id: `mailsvc:template:${v.templateId}:${v.version}`,
    title: `${v.templateId} ${v.version}`,
    type: 'object',
    additionalProperties: false,
    properties,
    ...(v.required.length > 0 && { required: v.required }),
  };
}

const ajv = new Ajv({
  allErrors: true,
  useDefaults: true,
  removeAdditional: false,
  coerceTypes: false,
  strict: true,
});
addFormats.default(ajv, ['date-time', 'email']);

const compiled = new WeakMap<TemplateVersion, ValidateFunction>();
const schemas = new WeakMap<TemplateVersion, JsonSchema>();

function schemaOf(v: TemplateVersion): JsonSchema {
  let schema = schemas.get(v);
  if (!schema) {
    schema = buildJsonSchema(v);
    schemas.set(v, schema);
  }
  return schema;
}

function validatorFor(v: TemplateVersion): ValidateFunction {
  let fn = compiled.get(v);
  if (!fn) {
    fn = ajv.compile(schemaOf(v));
    compiled.set(v, fn);
  }
  return fn;
}

/** Compiles every schema up front (start-up), so the first request does not pay for it. */
export function compileAll(versions: Iterable<TemplateVersion>): void {
  for (const v of versions) validatorFor(v);
}

export type ValidationResult =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; errors: FieldError[] };

/** Returns a new object with defaults filled, or every failing field with a JSON Pointer path. */
export function validateTemplateData(v: TemplateVersion, data: unknown): ValidationResult {
  // Sizes before items (@mailsvc/contract/size-bounds): data of 15,000 unknown keys is answered
  // from one pass over its keys, not from 15,000 validator errors (core and wrapper alike).
  const oversized = findSizeProblems(schemaOf(v), data);
  if (oversized.length > 0) return { ok: false, errors: oversized };
  const copy = data !== null && typeof data === 'object' ? structuredClone(data) : data;
  const validate = validatorFor(v);
  if (validate(copy)) return { ok: true, data: copy as Record<string, unknown> };
  return { ok: false, errors: toFieldErrors(validate.errors) };
}
