// `mailsvc admin <group> <action>`: parses flags into a use-case's input, checks it against the
// same JSON Schema the admin API uses, then runs it against the database, or, when a running
// `mailsvc start` holds the embedded database, sends it to that server's /admin/v1.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { TObject, TSchema } from '@sinclair/typebox';
import { loadConfig } from '../config.js';
import { readDataDirLock } from '../db/lock.js';
import { type AdminCommand, adminCommands } from '../domain/admin/index.js';
import { toAdminFieldProblems } from '../domain/admin/input-problems.js';
import { ApiError, type ErrorDetail } from '../errors.js';
import { readSecretFile } from '../secret-files.js';
import { createAjv } from '../validation.js';
import type { Io } from './main.js';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A bad argument: exit code 2, as is input the use-case refuses (invalid_request). */
export class UsageError extends Error {}

/** How the command line names an input property: `ID` for a positional one, else `--flag`. */
function argumentName(command: AdminCommand, path: string): string {
  const prop = path.split('/')[1] ?? '';
  return command.positional?.includes(prop) ? prop.toUpperCase() : `--${kebab(prop)}`;
}

/**
 * Field problems in the command line's terms, one line. A problem with the input as a whole
 * (path `/`) restates the error's own message, so that message is said once instead.
 */
function describeProblems(command: AdminCommand, message: string, details: ErrorDetail[]): string {
  const fields = details.filter((d) => d.path !== '/' && d.path !== '');
  if (fields.length === 0) return message;
  return fields.map((d) => `${argumentName(command, d.path)}: ${d.message}`).join('; ');
}

/**
 * node:util parseArgs reads a value that starts with '-' as an option ("argument is ambiguous"):
 * a negative number after a value option is joined to it (`--flag=-1`) so the schema judges it.
 */
function joinNegativeNumbers(argv: string[], valueOptions: Set<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (valueOptions.has(arg) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function adminUsage(): string {
  const lines = ['Usage: mailsvc admin <group> <action> [arguments] [--json]', ''];
  for (const [name, c] of Object.entries(adminCommands)) {
    lines.push(`  ${commandLine(name, c)}`, `      ${c.summary}`);
  }
  return lines.join('\n');
}

function commandLine(name: string, c: AdminCommand): string {
  const positional = c.positional ?? [];
  const required = new Set((c.input.required as string[] | undefined) ?? []);
  const parts = [name.replace('.', ' '), ...positional.map((p) => p.toUpperCase())];
  for (const [prop, schema] of Object.entries(c.input.properties as Record<string, TSchema>)) {
    if (positional.includes(prop)) continue;
    const flag = c.switches?.includes(prop) ? `--${kebab(prop)}` : `--${kebab(prop)} ${valueHint(schema)}`;
    parts.push(required.has(prop) ? flag : `[${flag}]`);
  }
  return parts.join(' ');
}

function valueHint(schema: TSchema): string {
  if (schema.type === 'integer') return 'N';
  if (typeof schema.pattern === 'string' && /^\^[a-z]{3}_/.test(schema.pattern)) return 'ID';
  if (schema.type === 'boolean') return 'true|false';
  if (Array.isArray(schema.enum)) return schema.enum.join('|');
  if (schema.type === 'array') return `${valueHint(schema.items as TSchema)},…`;
  const literals = (schema.anyOf as TSchema[] | undefined)?.filter(
    (s) => s.const !== undefined && s.const !== '',
  );
  if (literals && literals.length > 0) return literals.map((s) => s.const).join('|');
  return 'VALUE';
}

function coerce(prop: string, schema: TSchema, raw: string): unknown {
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${kebab(prop)}: must be a whole number`);
    return Number(raw);
  }
  if (schema.type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${kebab(prop)}: must be true or false`);
    return raw === 'true';
  }
  // a list: comma-separated (--template-categories security,transactional)
  if (schema.type === 'array') return raw.split(',').map((v) => v.trim());
  return raw;
}

export function parseAdminArgs(args: string[]): {
  name: string;
  command: AdminCommand;
  input: Record<string, unknown>;
  json: boolean;
} {
  const [group, maybeAction, ...rest] = args;
  const name = group === 'bootstrap' ? 'bootstrap' : `${group}.${maybeAction}`;
  const command = adminCommands[name];
  if (!command)
    throw new UsageError(`unknown admin command '${args.slice(0, 2).join(' ')}'; run 'mailsvc admin --help'`);
  const argv = group === 'bootstrap' ? args.slice(1) : rest;
  const props = command.input.properties as Record<string, TSchema>;
  const switches = new Set<string>(command.switches ?? []);
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const prop of Object.keys(props)) {
    options[kebab(prop)] = { type: switches.has(prop) ? 'boolean' : 'string' };
  }
  const valueOptions = new Set(
    Object.keys(props)
      .filter((p) => !switches.has(p))
      .map((p) => `--${kebab(p)}`),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeNumbers(argv, valueOptions),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, ''));
  }
  const positional = command.positional ?? [];
  if (parsed.positionals.length > positional.length) {
    throw new UsageError(`unexpected argument '${parsed.positionals[positional.length]}'`);
  }
  const input: Record<string, unknown> = {};
  positional.forEach((prop, i) => {
    const v = parsed.positionals[i];
    if (v !== undefined) input[prop] = coerce(prop, props[prop]!, v);
  });
  for (const prop of Object.keys(props)) {
    const v = parsed.values[kebab(prop)];
    if (typeof v === 'string') input[prop] = coerce(prop, props[prop]!, v);
    else if (v === true) input[prop] = true;
  }
  const validate = createAjv().compile(command.input as TObject);
  if (!validate(input)) {
    const problems = describeProblems(command, 'invalid arguments', toAdminFieldProblems(validate.errors));
    throw new UsageError(`${problems} (usage: mailsvc admin ${commandLine(name, command)})`);
  }
  return { name, command, input, json: parsed.values.json === true };
}

/** The running server could not run the command at all (as opposed to refusing it): exit 1. */
class ServerError extends Error {}

type AdminAnswer = {
  ok: boolean;
  error?: { code: string; message: string; details?: ErrorDetail[] };
} & Record<string, unknown>;

/** Sends a command to a running server's admin API, as `mailsvc admin` does on a held data directory. */
export async function forwardAdminCommand(
  url: string,
  token: string,
  name: string,
  input: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const path = `/admin/v1/${name.replace('.', '/')}`;
  let res: Response;
  let body: AdminAnswer;
  try {
    res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(input),
    });
    body = (await res.json()) as AdminAnswer;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new ServerError(`the running server at ${url} did not answer (${cause})`);
  }
  if (res.status === 404 && body.error?.message.startsWith('No route')) {
    // Every mailsvc with the admin API on has bootstrap: a 405 there means the API is on and
    // this server, started from an older mailsvc, lacks the command.
    const probe = await fetch(`${url}/admin/v1/bootstrap`, { method: 'GET' }).catch(() => null);
    if (probe?.status === 405) {
      throw new ServerError(
        `the running server does not know '${name.replace('.', ' ')}': it runs an older mailsvc; restart it`,
      );
    }
    throw new ServerError(
      'the admin API of the running server is off: restart it with MAILSVC_ADMIN_TOKEN set, or run the command with DATABASE_URL',
    );
  }
  if (!body.ok) {
    const e = body.error!;
    throw new ApiError(e.code as never, e.message, e.details);
  }
  const { ok: _ok, ...result } = body;
  return result;
}

function printHuman(io: Io, value: unknown, indent = ''): void {
  if (Array.isArray(value)) {
    if (value.length === 0) io.stdout(`${indent}(none)`);
    value.forEach((item, i) => {
      if (i > 0) io.stdout('');
      printHuman(io, item, indent);
    });
    return;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object') {
      io.stdout(`${indent}${k}:`);
      printHuman(io, v, `${indent}  `);
    } else {
      io.stdout(`${indent}${k}: ${v ?? '-'}`);
    }
  }
}

export async function runAdmin(args: string[], io: Io): Promise<number> {
  if (args.length === 0 || args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    io.stdout(adminUsage());
    return args.length === 0 ? 2 : 0;
  }
  if (args.includes('--help') || args.includes('-h')) {
    const name = args[0] === 'bootstrap' ? 'bootstrap' : `${args[0]}.${args[1]}`;
    const command = adminCommands[name];
    io.stdout(
      command
        ? `Usage: mailsvc admin ${commandLine(name, command)} [--json]\n  ${command.summary}`
        : adminUsage(),
    );
    return 0;
  }
  let parsed: ReturnType<typeof parseAdminArgs>;
  try {
    parsed = parseAdminArgs(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`mailsvc admin: ${err.message}`);
    return 2;
  }
  const config = loadConfig();
  let result: Record<string, unknown>;
  try {
    const holder = config.DATABASE_URL ? null : readDataDirLock(config.dataDir);
    if (holder?.adminUrl) {
      const token = config.MAILSVC_ADMIN_TOKEN ?? readSecretFile(config.dataDir, 'admin-token');
      if (!token)
        throw new ApiError('invalid_admin_token', `No admin token in ${config.dataDir}/admin-token.`);
      result = await forwardAdminCommand(holder.adminUrl, token, parsed.name, parsed.input);
    } else {
      // A data directory with no database is most often the wrong one (the server runs with another
      // MAILSVC_DATA_DIR): say so instead of creating an empty database there. bootstrap makes one.
      const pgdata = path.join(config.dataDir, 'pgdata');
      if (!config.DATABASE_URL && parsed.name !== 'bootstrap' && !fs.existsSync(pgdata)) {
        io.stderr(
          `mailsvc admin: no database in ${config.dataDir} and no running \`mailsvc start\` there. ` +
            'Run the command with the MAILSVC_DATA_DIR (or DATABASE_URL) the server uses, or create the database with `mailsvc migrate` or `mailsvc admin bootstrap`.',
        );
        return 1;
      }
      const { openRuntime } = await import('../runtime.js');
      const runtime = await openRuntime(config, { command: `admin ${parsed.name.replace('.', ' ')}` });
      try {
        result = await parsed.command.run(runtime.deps, parsed.input as never, 'admin:cli');
      } finally {
        await runtime.close();
      }
    }
  } catch (err) {
    if (err instanceof ServerError) {
      io.stderr(`mailsvc admin: ${err.message}`);
      return 1;
    }
    if (!(err instanceof ApiError)) throw err;
    io.stderr(`mailsvc admin: ${describeProblems(parsed.command, err.message, err.details ?? [])}`);
    // Input the use-case refuses is a bad argument like input the schema refuses; an unknown
    // record, a duplicate or a refused token is a refused operation.
    return err.code === 'invalid_request' ? 2 : 1;
  }
  if (parsed.json) io.stdout(JSON.stringify(result));
  else if (parsed.command.format) io.stdout(parsed.command.format(result));
  else printHuman(io, result);
  return 0;
}
