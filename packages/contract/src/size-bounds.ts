// The sizes a schema allows (`maxItems`, `maxProperties`), checked before anything looks at the
// items. A schema validator that reports every error (Ajv's allErrors, which the API relies on
// to list every field problem) checks each of 100,000 array items even when the array may hold
// 1,000: a 200 KB body of zeros cost 1.3–2.2 s and a 5 MB answer, and six at once stalled every
// tenant's requests. This walk visits at most what the bounds allow, so the full validation
// that follows it only ever sees inputs of the size the schema declares.
// Browser-safe: no Node API.
import { MAX_ERROR_DETAILS } from './errors.js';

export interface SizeProblem {
  /** JSON Pointer into the value. */
  path: string;
  message: string;
}

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * Whether a union branch is the one for the value: its `type` (absent: any) admits the value's
 * JSON type, and the properties it fixes (`const`, the tags of a discriminated union such as the
 * contacts list filters' field and op) have those values.
 */
function admits(schema: Schema, value: unknown): boolean {
  const type = schema.type;
  if (type !== undefined) {
    const t = jsonType(value);
    const types = Array.isArray(type) ? type : [type];
    if (!(types.includes(t) || (t === 'integer' && types.includes('number')))) return false;
  }
  if (!isObject(value) || !isObject(schema.properties)) return true;
  return Object.entries(schema.properties).every(
    ([key, sub]) =>
      !isObject(sub) || !('const' in sub) || !Object.hasOwn(value, key) || value[key] === sub.const,
  );
}

function walk(schema: unknown, value: unknown, path: string, out: SizeProblem[]): void {
  if (!isObject(schema)) return;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    // The value is too large for the union only when every branch that takes its type finds it
    // too large; then the first one's problems are reported.
    let first: SizeProblem[] | undefined;
    let isAnyBranchFine = false;
    for (const branch of branches) {
      if (!isObject(branch) || !admits(branch, value)) continue;
      const found: SizeProblem[] = [];
      walk(branch, value, path, found);
      if (found.length === 0) {
        isAnyBranchFine = true;
        break;
      }
      first ??= found;
    }
    if (!isAnyBranchFine && first) out.push(...first);
    if (out.length > 0) return;
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) walk(part, value, path, out);
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      out.push({ path: path || '/', message: `must NOT have more than ${schema.maxItems} items` });
      return;
    }
    if (isObject(schema.items)) {
      for (let i = 0; i < value.length && out.length === 0; i++)
        walk(schema.items, value[i], `${path}/${i}`, out);
    }
    return;
  }
  if (!isObject(value)) return;
  const keys = Object.keys(value);
  if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
    out.push({ path: path || '/', message: `must NOT have more than ${schema.maxProperties} properties` });
    return;
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  const patterns = isObject(schema.patternProperties)
    ? Object.entries(schema.patternProperties).map(([p, s]) => [new RegExp(p, 'u'), s] as const)
    : [];
  if (schema.additionalProperties === false) {
    // A closed object with more unknown keys than an answer lists: the problems are those keys,
    // found here in one pass instead of by a validator that builds an error object per key.
    const unknown = keys.filter((k) => !Object.hasOwn(properties, k) && !patterns.some(([re]) => re.test(k)));
    if (unknown.length > MAX_ERROR_DETAILS) {
      for (const k of unknown)
        out.push({ path: `${path}/${escapePointer(k)}`, message: 'is not an allowed property' });
      return;
    }
  }
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  if (patterns.length === 0 && additional === undefined) {
    // Only the declared properties can hold bounded containers.
    for (const [key, sub] of Object.entries(properties)) {
      if (out.length > 0) return;
      if (Object.hasOwn(value, key)) walk(sub, value[key], `${path}/${escapePointer(key)}`, out);
    }
    return;
  }
  for (const key of keys) {
    if (out.length > 0) return;
    const child = `${path}/${escapePointer(key)}`;
    if (Object.hasOwn(properties, key)) {
      walk(properties[key], value[key], child, out);
      continue;
    }
    const matched = patterns.filter(([re]) => re.test(key));
    for (const [, sub] of matched) walk(sub, value[key], child, out);
    if (matched.length === 0 && additional) walk(additional, value[key], child, out);
  }
}

/**
 * The first containers of `value` that hold more items or properties than `schema` allows for
 * them (`maxItems`, `maxProperties`, through properties, items, patternProperties,
 * additionalProperties, allOf, anyOf and oneOf), or that are closed (`additionalProperties:
 * false`) and hold more unknown keys than an error answer lists (MAX_ERROR_DETAILS): then each of
 * those keys. Empty when every size is within bounds. Stops at the first container found, so its
 * cost is one pass over the input at most, never a validator's error object per item.
 */
export function findSizeProblems(schema: unknown, value: unknown): SizeProblem[] {
  const out: SizeProblem[] = [];
  walk(schema, value, '', out);
  return out;
}
