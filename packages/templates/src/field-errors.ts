// Kept free of the catalogue so the server can import it without compiling every template.
import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';
import { METADATA_VALUE_PATTERN } from '@mailsvc/contract/metadata';
import { HTTP_URL_PATTERN } from './blocks/url.js';
import type { FieldError } from './model.js';

interface AjvErrorLike {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string | undefined;
}

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** One line of display text (names): what @mailsvc/contract/display-name refuses, as a schema pattern. */
const DISPLAY_TEXT_PATTERN = `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`;

/** An enum's or a union of literals' answer: every allowed value, as JSON. */
const mustBeOneOf = (values: readonly unknown[]) =>
  `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;

/**
 * Ajv errors as `{path, message}`, each path a JSON Pointer to the offending property itself
 * (the missing or unknown one, not its parent). Shared with the server's request validation.
 */
export function toFieldErrors(errors: readonly AjvErrorLike[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  // A value in an anyOf (an array or null, say) of the right type whose problem is inside it or a
  // rule of its branch (repeated items): that problem is the answer, not "must be null" and "must
  // match a schema in anyOf" beside it.
  const explainedWithin = new Set(
    (errors ?? [])
      .filter((e) => e.keyword === 'anyOf')
      .map((e) => e.instancePath)
      .filter((p) =>
        (errors ?? []).some(
          (o) =>
            o.instancePath.startsWith(`${p}/`) ||
            (o.instancePath === p && !['type', 'anyOf', 'const'].includes(o.keyword)),
        ),
      ),
  );
  // An anyOf of fixed values (a union of literals) answers with every allowed value, once.
  const constsAt = new Map<string, unknown[]>();
  for (const e of errors ?? [])
    if (e.keyword === 'const')
      constsAt.set(e.instancePath, [...(constsAt.get(e.instancePath) ?? []), e.params.allowedValue]);
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if ((e.keyword === 'anyOf' || e.keyword === 'type') && explainedWithin.has(path)) continue;
    const consts = constsAt.get(path);
    if (consts && consts.length > 1 && (e.keyword === 'const' || e.keyword === 'anyOf')) {
      message = mustBeOneOf(consts);
    } else if (e.keyword === 'uniqueItems') {
      message = `must not repeat a value (items ${e.params.j} and ${e.params.i} are the same)`;
    } else if (e.keyword === 'minProperties') {
      const n = Number(e.params.limit);
      message = `must have at least ${n} ${n === 1 ? 'property' : 'properties'}`;
    } else if (e.keyword === 'required') {
      path += `/${escapePointer(String(e.params.missingProperty))}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${escapePointer(String(e.params.additionalProperty))}`;
      message = 'is not an allowed property';
    } else if (e.keyword === 'pattern' && e.params.pattern === HTTP_URL_PATTERN) {
      message =
        'must be an http or https URL with a host, without user info, spaces, control or invisible characters';
    } else if (e.keyword === 'pattern' && e.params.pattern === DISPLAY_TEXT_PATTERN) {
      message = 'must not contain line breaks, control, bidirectional or invisible characters';
    } else if (e.keyword === 'pattern' && e.params.pattern === METADATA_VALUE_PATTERN) {
      // a metadata value, a suppression's note
      message = 'must not contain control characters or line separators';
    } else if (e.keyword === 'format' && e.params.format === 'email') {
      message = 'must be an email address such as name@example.com';
    } else if (e.keyword === 'format' && e.params.format === 'date-time') {
      message = 'must be an RFC 3339 time with an offset, such as 2026-12-01T09:00:00Z';
    } else if (
      e.keyword === 'enum' &&
      Array.isArray(e.params.allowedValues) &&
      e.params.allowedValues.length <= 12
    ) {
      message = mustBeOneOf(e.params.allowedValues);
    } else if (e.keyword === 'discriminator') {
      // The tag's own schema (required, type, enum) reports the problem at the tag's path.
      const tag = String(e.params.tag);
      path += `/${escapePointer(tag)}`;
      const isReported = (errors ?? []).some(
        (o) =>
          o.instancePath === path ||
          (o.keyword === 'required' && o.instancePath === e.instancePath && o.params.missingProperty === tag),
      );
      if (isReported) continue;
      message = 'is not one of the allowed values';
    }
    const key = `${path} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: path || '/', message });
  }
  return out;
}
