// `mailsvc templates list|show|render`.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { templates } from './catalogue/index.js';
import { GALLERY_CONTEXT } from './gallery.js';
import { TemplateNotFoundError, TemplateVersionNotFoundError } from './model.js';
import {
  getTemplate,
  getVersionForPreview,
  jsonSchemaFor,
  renderVersion,
  validateTemplateData,
} from './registry.js';

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const USAGE =
  'usage: mailsvc templates list [--json] | show ID [--version V] [--json] | render ID [--version V] --data FILE --out DIR';

const HELP = `Usage: mailsvc templates <command>

  list [--json]
      every template: id, category, route and versions
  show ID [--version V] [--json]
      a template's fields, required fields and the JSON Schema of its data
  render ID [--version V] --data FILE --out DIR
      renders the data in FILE (JSON) to DIR/ID.html, DIR/ID.txt and DIR/subject.txt

--version V names a version, drafts included; without it, the latest published one.`;

type ParsedArgs = ReturnType<typeof parseArgs>;
type Values = ParsedArgs['values'];

export async function runTemplatesCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'help' || sub === '--help' || sub === '-h') {
    io.stdout(HELP);
    return 0;
  }
  const parsed = parseOptions(rest, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  const version = typeof values.version === 'string' ? values.version : undefined;
  let code: number | undefined;
  try {
    if (sub === 'list') code = listCommand(positionals, values, io);
    else if (sub === 'show') code = showCommand(positionals, values, version, io);
    else if (sub === 'render') code = renderCommand(positionals, values, version, io);
  } catch (err) {
    if (err instanceof TemplateNotFoundError || err instanceof TemplateVersionNotFoundError) {
      io.stderr(`mailsvc templates: ${err.message}`);
      return 1;
    }
    throw err;
  }
  if (code !== undefined) return code;
  io.stderr(`mailsvc templates: ${USAGE}`);
  return 2;
}

/** The options after the command; an exit code (2) when they do not parse. */
function parseOptions(rest: string[], io: Io): ParsedArgs | number {
  try {
    return parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        version: { type: 'string' },
        data: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.stderr(`mailsvc templates: ${(err as Error).message.split('\n')[0]}`);
    return 2;
  }
}

// Each command answers its exit code, or undefined when its arguments do not fit (usage, 2).

function listCommand(positionals: string[], values: Values, io: Io): number | undefined {
  if (positionals.length > 0) return undefined;
  const list = templates.map((t) => ({
    id: t.id,
    routePath: t.routePath,
    operationName: t.operationName,
    category: t.category,
    description: t.description,
    versions: t.versions.map((v) => ({ version: v.version, status: v.status })),
  }));
  if (values.json) io.stdout(JSON.stringify({ templates: list }));
  else
    for (const t of list)
      io.stdout(
        `${t.id.padEnd(28)} ${t.category.padEnd(14)} ${t.routePath.padEnd(36)} ${t.versions.map((v) => `${v.version}${v.status === 'draft' ? ' (draft)' : ''}`).join(', ')}`,
      );
  return 0;
}

function showCommand(
  positionals: string[],
  values: Values,
  version: string | undefined,
  io: Io,
): number | undefined {
  if (positionals.length !== 1) return undefined;
  const id = positionals[0]!;
  const v = version ? getVersionForPreview(id, version) : getTemplate(id).version;
  const t = templates.find((x) => x.id === id)!;
  const out = {
    id: t.id,
    routePath: t.routePath,
    operationName: t.operationName,
    category: t.category,
    version: v.version,
    status: v.status,
    required: v.required,
    fields: v.fields,
    jsonSchema: jsonSchemaFor(v),
  };
  if (values.json) io.stdout(JSON.stringify(out));
  else io.stdout(JSON.stringify(out, null, 2));
  return 0;
}

function renderCommand(
  positionals: string[],
  values: Values,
  version: string | undefined,
  io: Io,
): number | undefined {
  if (positionals.length !== 1 || typeof values.data !== 'string' || typeof values.out !== 'string')
    return undefined;
  const id = positionals[0]!;
  const v = version ? getVersionForPreview(id, version) : getTemplate(id).version;
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(values.data, 'utf8'));
  } catch (err) {
    io.stderr(`mailsvc templates: cannot read ${values.data}: ${(err as Error).message}`);
    return 2;
  }
  const checked = validateTemplateData(v, data);
  if (!checked.ok) {
    io.stderr(
      `mailsvc templates: invalid data: ${checked.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
    );
    return 1;
  }
  const rendered = renderVersion(v, checked.data, GALLERY_CONTEXT);
  fs.mkdirSync(values.out, { recursive: true });
  fs.writeFileSync(path.join(values.out, `${id}.html`), rendered.html);
  fs.writeFileSync(path.join(values.out, `${id}.txt`), rendered.text);
  fs.writeFileSync(path.join(values.out, 'subject.txt'), `${rendered.subject}\n`);
  io.stdout(`wrote ${id}.html, ${id}.txt and subject.txt to ${values.out}`);
  return 0;
}
