import type { DetailFormat, DetailRow, DetailsTableField, JsonSchema } from './types.js';

export const DETAIL_VALUE_MAX = 500;

export function detailsTable(
  name: string,
  heading: string,
  rows: [string, string, DetailFormat?][],
): DetailsTableField {
  return {
    kind: 'detailsTable',
    name,
    heading,
    rows: rows.map(([key, label, format]): DetailRow => ({ key, label, format: format ?? 'string' })),
  };
}

export function detailsTableSchema(f: DetailsTableField): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const row of f.rows) {
    properties[row.key] =
      row.format === 'string'
        ? { type: 'string', maxLength: DETAIL_VALUE_MAX }
        : { type: 'string', format: row.format, maxLength: row.format === 'email' ? 254 : 64 };
  }
  return { type: 'object', additionalProperties: false, properties };
}
