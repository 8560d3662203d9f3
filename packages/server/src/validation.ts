// One Ajv set-up for every JSON Schema the server checks (HTTP bodies, admin CLI input), so
// the CLI and the API accept exactly the same values.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { isEmail } from './domain/email.js';

export const ajvOptions: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  coerceTypes: false,
  strict: true,
};

export function addMailsvcFormats(ajv: Ajv): Ajv {
  addFormats.default(ajv, ['date-time']);
  ajv.addFormat('email', { type: 'string', validate: isEmail });
  return ajv;
}

export function createAjv(): Ajv {
  return addMailsvcFormats(new Ajv(ajvOptions));
}

export interface FieldProblem {
  path: string;
  message: string;
}

interface AjvErrorLike {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string | undefined;
}

/** Ajv errors as `{path, message}` with JSON Pointers to the offending property itself. */
export function toFieldProblems(errors: readonly AjvErrorLike[] | null | undefined): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path += `/${escapePointer(String(e.params.missingProperty))}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${escapePointer(String(e.params.additionalProperty))}`;
      message = 'is not an allowed property';
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: path || '/', message });
  }
  return out;
}

function escapePointer(s: string): string {
  return s.replaceAll('~', '~0').replaceAll('/', '~1');
}
