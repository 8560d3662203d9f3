// Kept free of the catalogue so the server can import it without compiling every template.
import { HTTP_URL_PATTERN } from './blocks/url.js';
import type { FieldError } from './model.js';

interface AjvErrorLike {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string | undefined;
}

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Ajv errors as `{path, message}`, each path a JSON Pointer to the offending property itself
 * (the missing or unknown one, not its parent). Shared with the server's request validation.
 */
export function toFieldErrors(errors: readonly AjvErrorLike[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path += `/${escapePointer(String(e.params.missingProperty))}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${escapePointer(String(e.params.additionalProperty))}`;
      message = 'is not an allowed property';
    } else if (e.keyword === 'pattern' && e.params.pattern === HTTP_URL_PATTERN) {
      message =
        'must be an http or https URL with a host, without user info, spaces, control or invisible characters';
    }
    const key = `${path} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: path || '/', message });
  }
  return out;
}
