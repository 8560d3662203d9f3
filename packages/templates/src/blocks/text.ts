import type { JsonSchema, TextField, TextRole } from './types.js';

/** Maxima of the seed: subject and heading 180, preheader 220, body text 1000. */
export const TEXT_MAX: Record<TextRole, number> = {
  subject: 180,
  preheader: 220,
  heading: 180,
  paragraph: 1000,
  notice: 1000,
  note: 1000,
};

export function text(name: string, role: TextRole, defaultValue?: string): TextField {
  return {
    kind: 'text',
    name,
    role,
    maxLength: TEXT_MAX[role],
    ...(defaultValue !== undefined && { default: defaultValue }),
  };
}

export function textSchema(f: TextField): JsonSchema {
  return { type: 'string', maxLength: f.maxLength, ...(f.default !== undefined && { default: f.default }) };
}
