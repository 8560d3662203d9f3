// Writes src/db/generated/schema.ts, the Kysely row types, from the migrations: an in-memory PGlite
// opened by openDatabase() (with the extensions the server loads) gets every migration through
// migrate(), as `mailsvc migrate` applies them, and each table's columns (type, NULL, default) and
// single-column CHECK (… IN (…)) lists are read back from information_schema and pg_catalog.
// What SQL does not say is in the tables below: the name of each union, a jsonb column's shape,
// and text columns the code holds to a union that no constraint states.
// Run `npm run generate:db -w @mailsvc/server` after adding a migration (`npm run docs` runs it
// too); test/db-schema.test.ts fails while the checked-in file differs from what this produces.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/connection.js';
import { listMigrations, type Migration, migrate } from '../src/db/migrate.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const GENERATED_FILE = path.resolve(HERE, '../src/db/generated/schema.ts');

/** The migrations' own bookkeeping, not a table the code reads through Kysely. */
const SKIPPED_TABLES = new Set(['schema_migrations', 'schema_functions']);

/** The exported name of a CHECK (… IN (…)) column's union; a column not listed gets it inline. */
const UNION_NAMES: Record<string, string> = {
  'tenants.access_status': 'AccessStatus',
  'projects.status': 'ActiveStatus',
  'environments.status': 'ActiveStatus',
  'environments.sending_status': 'SendingStatus',
  'sending_domains.status': 'DomainStatus',
  'sending_domains.scope': 'DomainScope',
  'sending_domains.return_path_status': 'ReturnPathStatus',
  'messages.category': 'TemplateCategory',
  'messages.status': 'MessageStatus',
  'bulk_jobs.status': 'BulkJobStatus',
  'members.role': 'MemberRole',
  'members.status': 'MemberStatus',
};

/**
 * A column's value type where it is narrower than the SQL type (the code writes only these
 * values, though no constraint says so); NULL and a default still wrap it as for any column.
 */
const NARROWED_TYPES: Record<string, string> = {
  // Copied from the template's category by the bulk send, as messages.category is.
  'bulk_jobs.category': 'TemplateCategory',
};

/**
 * The whole column type of every jsonb column: what a read gives (pg parses the JSON) and what a
 * write takes (a JSON string). Whether an insert may leave it out is as the code was written.
 */
const JSON_TYPES: Record<string, string> = {
  'audit_events.details': 'Json<Record<string, unknown>>',
  'messages.data': 'ColumnType<Record<string, unknown> | null, string | null, string | null>',
  'messages.last_error': 'NullableJson<Record<string, unknown>>',
  'messages.metadata': 'ColumnType<Record<string, string> | null, string | null, string | null>',
  'bulk_jobs.metadata': 'ColumnType<Record<string, string> | null, string | null, string | null>',
  'idempotency_keys.response': 'ColumnType<Record<string, unknown> | null, string | null, string | null>',
  'message_events.details': 'Json<Record<string, unknown>>',
  'contacts.custom_fields': 'Json<Record<string, CustomFieldValue>>',
  'bulk_jobs.template_data': 'ColumnType<Record<string, unknown> | null, string | null, string | null>',
  'bulk_jobs.target': 'Json<{ groupSlug?: string; contactCount: number }>',
  'bulk_jobs.skipped': 'Json<Record<string, number>>',
  'webhook_events.data': 'Json<Record<string, unknown>>',
  'sending_domains.last_check': 'NullableJson<Record<string, unknown>>',
};

/** A comment on a column, where its type does not say enough. */
const COLUMN_DOCS: Record<string, string> = {
  'idempotency_keys.message_id': 'The message of a POST /v1/send, or NULL when the key holds a bulk job.',
};

/** The TypeScript of each SQL type (pg_type.typname); timestamptz and jsonb are handled apart. */
const SCALAR_TYPES: Record<string, string> = {
  text: 'string',
  varchar: 'string',
  int2: 'number',
  int4: 'number',
  // connection.ts parses int8 as a number (every count here is far below 2^53).
  int8: 'number',
  // pg and PGlite parse float8 as a number.
  float8: 'number',
  bool: 'boolean',
  bytea: 'Buffer',
  _text: 'string[]',
};

/** The helper types, each emitted when a column uses it. */
const HELPERS: Record<string, string> = {
  Timestamp: 'type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;',
  NullableTimestamp:
    'type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;',
  Nullable: 'type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;',
  Json: '/** A jsonb column: read as its value, written as a JSON string. */\ntype Json<T> = ColumnType<T, string | undefined, string>;',
  NullableJson: 'type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;',
};

/** Types the JSON shapes name that no table defines: written by hand in src/db/schema.ts. */
const HAND_WRITTEN_TYPES = ['CustomFieldValue'];

interface Column {
  table: string;
  name: string;
  udt: string;
  nullable: boolean;
  hasDefault: boolean;
}

interface Introspection {
  tables: string[];
  columns: Column[];
  /** table.column → the values its CHECK (column IN (…)) allows, in the constraint's order. */
  unions: Map<string, string[]>;
}

const pascal = (s: string) => s.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
const quote = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The values of a CHECK that holds one column to a list, as pg_get_constraintdef prints it:
 * `CHECK ((status = ANY (ARRAY['a'::text, 'b'::text])))`, or `CHECK ((status = 'a'::text))` for
 * a list of one. Any other CHECK (a range, a pattern, several columns) leaves the column's type.
 */
export function parseInCheck(def: string): { column: string; values: string[] } | null {
  const literal = "'((?:[^']|'')*)'::(?:text|character varying)";
  const column = String.raw`\(?(\w+)\)?(?:::text)?`;
  const list = def.match(
    new RegExp(
      String.raw`^CHECK \(\(${column} = ANY \(\(?ARRAY\[(.*?)\]\)?(?:::text\[\])?\)\)\)(?: NOT VALID)?$`,
    ),
  );
  const one = def.match(new RegExp(String.raw`^CHECK \(\(${column} = ${literal}\)\)(?: NOT VALID)?$`));
  const unquote = (v: string) => v.replace(/''/g, "'");
  if (list) {
    const items = list[2]!;
    // Literals only, comma-separated: ARRAY[…] of anything else is no plain list.
    if (items.replace(new RegExp(literal, 'g'), '').replace(/,\s*/g, '') !== '') return null;
    return {
      column: list[1]!,
      values: [...items.matchAll(new RegExp(literal, 'g'))].map((m) => unquote(m[1]!)),
    };
  }
  if (one) return { column: one[1]!, values: [unquote(one[2]!)] };
  return null;
}

/** Applies the migrations to a new in-memory PGlite and reads its tables back. */
async function introspect(migrations: Migration[]): Promise<Introspection> {
  const handle = await openDatabase({ dataDir: '', command: 'generate-db-schema', memory: {} });
  try {
    await migrate(handle.pool, migrations);
    const { rows: columnRows } = await handle.pool.query<{
      table: string;
      name: string;
      udt: string;
      nullable: boolean;
      has_default: boolean;
    }>(
      `SELECT c.table_name AS table, c.column_name AS name, c.udt_name AS udt,
              c.is_nullable = 'YES' AS nullable, c.column_default IS NOT NULL AS has_default
         FROM information_schema.columns c
         JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = current_schema()::regnamespace
        WHERE c.table_schema = current_schema() AND k.relkind = 'r'
        ORDER BY k.oid, c.ordinal_position`,
    );
    const { rows: checkRows } = await handle.pool.query<{ table: string; def: string }>(
      `SELECT k.relname AS table, pg_get_constraintdef(c.oid) AS def
         FROM pg_constraint c JOIN pg_class k ON k.oid = c.conrelid
        WHERE c.contype = 'c' AND k.relnamespace = current_schema()::regnamespace
          AND cardinality(c.conkey) = 1
        ORDER BY k.oid, c.conname`,
    );
    const columns = columnRows
      .filter((r) => !SKIPPED_TABLES.has(r.table))
      .map((r) => ({
        table: r.table,
        name: r.name,
        udt: r.udt,
        nullable: r.nullable,
        hasDefault: r.has_default,
      }));
    const unions = new Map<string, string[]>();
    for (const { table, def } of checkRows) {
      const parsed = parseInCheck(def);
      if (!parsed) continue;
      const key = `${table}.${parsed.column}`;
      if (unions.has(key)) throw new Error(`${key} has two CHECK (… IN (…)) constraints`);
      unions.set(key, parsed.values);
    }
    return { tables: [...new Set(columns.map((c) => c.table))], columns, unions };
  } finally {
    await handle.close();
  }
}

/** Every table's interface, the named unions before their first use, then Database and Db. */
function render({ tables, columns, unions }: Introspection): string {
  const known = new Set(columns.map((c) => `${c.table}.${c.name}`));
  for (const [table, name] of [
    [UNION_NAMES, 'UNION_NAMES'],
    [NARROWED_TYPES, 'NARROWED_TYPES'],
    [JSON_TYPES, 'JSON_TYPES'],
    [COLUMN_DOCS, 'COLUMN_DOCS'],
  ] as const) {
    for (const key of Object.keys(table))
      if (!known.has(key)) throw new Error(`${name} names ${key}, which no migration creates`);
  }
  const named = new Map<string, string[]>();
  for (const [key, name] of Object.entries(UNION_NAMES)) {
    const values = unions.get(key);
    if (!values) throw new Error(`UNION_NAMES names ${key}, which has no CHECK (${key} IN (…))`);
    const other = named.get(name);
    if (other && other.join() !== values.join())
      throw new Error(`${name}: ${key} allows ${values.join(', ')}, another column ${other.join(', ')}`);
    named.set(name, values);
  }

  const emitted = new Set<string>();
  const blocks: string[] = [];
  for (const table of tables) {
    const before: string[] = [];
    const members: string[] = [];
    for (const column of columns.filter((c) => c.table === table)) {
      const key = `${table}.${column.name}`;
      const unionName = UNION_NAMES[key];
      if (unionName && !emitted.has(unionName)) {
        emitted.add(unionName);
        before.push(`export type ${unionName} = ${named.get(unionName)!.map(quote).join(' | ')};`);
      }
      const doc = COLUMN_DOCS[key];
      if (doc) members.push(`  /** ${doc} */`);
      members.push(`  ${column.name}: ${columnType(column, unions)};`);
    }
    if (before.length > 0) blocks.push(before.join('\n'));
    blocks.push([`export interface ${pascal(table)}Table {`, ...members, '}'].join('\n'));
  }
  blocks.push(
    ['export interface Database {', ...tables.map((t) => `  ${t}: ${pascal(t)}Table;`), '}'].join('\n'),
    'export type Db = Kysely<Database>;',
  );

  const body = blocks.join('\n\n');
  const uses = (name: string) => new RegExp(`\\b${name}\\b`).test(body);
  const helpers = Object.entries(HELPERS)
    .filter(([name]) => uses(name))
    .map(([, text]) => text);
  const kysely = ['ColumnType', 'Generated', 'Kysely'].filter(uses);
  const handWritten = HAND_WRITTEN_TYPES.filter(uses);
  const header = [
    '// Generated by packages/server/scripts/generate-db-schema.ts from the migrations (src/db/migrations):',
    '// do not edit. Regenerate with `npm run generate:db -w @mailsvc/server` (or `npm run docs`).',
    `import type { ${kysely.join(', ')} } from 'kysely';`,
    ...(handWritten.length > 0 ? [`import type { ${handWritten.join(', ')} } from '../schema.js';`] : []),
  ].join('\n');
  return `${[header, helpers.join('\n'), body].join('\n\n')}\n`;
}

function columnType(column: Column, unions: Map<string, string[]>): string {
  const key = `${column.table}.${column.name}`;
  if (column.udt === 'jsonb' || column.udt === 'json') {
    const type = JSON_TYPES[key];
    if (!type) throw new Error(`${key} is ${column.udt}: give its type in JSON_TYPES`);
    return type;
  }
  if (column.udt === 'timestamptz') return column.nullable ? 'NullableTimestamp' : 'Timestamp';
  const values = unions.get(key);
  const base =
    UNION_NAMES[key] ??
    NARROWED_TYPES[key] ??
    (values ? values.map(quote).join(' | ') : undefined) ??
    SCALAR_TYPES[column.udt];
  if (!base) throw new Error(`${key} is ${column.udt}: add the type to SCALAR_TYPES`);
  if (column.nullable) return `Nullable<${base}>`;
  if (column.hasDefault) return `Generated<${base}>`;
  return base;
}

/** The text as Biome formats it (biome.json), so the checked-in file passes `npm run lint`. */
function format(text: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${GENERATED_FILE}`], {
    input: text,
    encoding: 'utf8',
    cwd: path.resolve(HERE, '../../..'),
  });
}

/** The content src/db/generated/schema.ts should have for these migrations. */
export async function generateDbSchema(migrations: Migration[] = listMigrations()): Promise<string> {
  return format(render(await introspect(migrations)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.mkdirSync(path.dirname(GENERATED_FILE), { recursive: true });
  fs.writeFileSync(GENERATED_FILE, await generateDbSchema());
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_FILE)}`);
}
