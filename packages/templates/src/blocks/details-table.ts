import type { DetailFormat, DetailRow, DetailsTableField, JsonSchema } from './types.js';

export const DETAIL_VALUE_MAX = 500;

export function detailsTable(
  name: string,
  heading: string,
  rows: [string, string, DetailFormat?][],
  required: string[] = [],
): DetailsTableField {
  const unknown = required.filter((key) => !rows.some(([k]) => k === key));
  if (unknown.length > 0) throw new Error(`${name} requires keys it does not have: ${unknown.join(', ')}`);
  return {
    kind: 'detailsTable',
    name,
    heading,
    rows: rows.map(([key, label, format]): DetailRow => ({ key, label, format: format ?? 'string' })),
    required,
  };
}

export function detailsTableSchema(f: DetailsTableField): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const row of f.rows) {
    properties[row.key] =
      row.format === 'string'
        ? {
            type: 'string',
            // A required value that is empty would leave its row out of the message.
            ...(f.required.includes(row.key) && { minLength: 1 }),
            maxLength: DETAIL_VALUE_MAX,
          }
        : { type: 'string', format: row.format, maxLength: row.format === 'email' ? 254 : 64 };
  }
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    ...(f.required.length > 0 && { required: f.required }),
  };
}
