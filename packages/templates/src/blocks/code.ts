import type { CodeField, JsonSchema } from './types.js';

export const CODE_MAX = 240;

export function code(name = 'code'): CodeField {
  return { kind: 'code', name, maxLength: CODE_MAX };
}

export function codeSchema(f: CodeField): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: f.maxLength };
}
