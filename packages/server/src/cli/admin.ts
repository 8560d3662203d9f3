// `mailsvc admin <group> <action>`: parses flags into a use-case's input, checks it against the
// same JSON Schema the admin API uses, then runs it against the database, or, when a running
// `mailsvc start` holds the embedded database, sends it to that server's /admin/v1.
import { parseArgs } from 'node:util';
import type { TObject, TSchema } from '@sinclair/typebox';
import { loadConfig } from '../config.js';
import { readDataDirLock } from '../db/lock.js';
import { type AdminCommand, adminCommands } from '../domain/admin/index.js';
import { ApiError } from '../errors.js';
import { readSecretFile } from '../secret-files.js';
import { createAjv, toFieldProblems } from '../validation.js';
import type { Io } from './main.js';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

class UsageError extends Error {}

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
    const flag = `--${kebab(prop)} ${valueHint(schema)}`;
    parts.push(required.has(prop) ? flag : `[${flag}]`);
  }
  return parts.join(' ');
}

function valueHint(schema: TSchema): string {
  if (schema.type === 'integer') return 'N';
  if (schema.type === 'boolean') return 'true|false';
  const literals = (schema.anyOf as TSchema[] | undefined)?.filter(
    (s) => s.const !== undefined && s.const !== '',
  );
  if (literals && literals.length > 0) return literals.map((s) => s.const).join('|');
  return 'VALUE';
}

function coerce(prop: string, schema: TSchema, raw: string): unknown {
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${kebab(prop)} must be a whole number`);
    return Number(raw);
  }
  if (schema.type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${kebab(prop)} must be true or false`);
    return raw === 'true';
  }
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
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const prop of Object.keys(props)) options[kebab(prop)] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
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
  }
  const validate = createAjv().compile(command.input as TObject);
  if (!validate(input)) {
    const first = toFieldProblems(validate.errors)[0]!;
    const prop = first.path.split('/')[1] ?? '';
    const label = positional.includes(prop) ? prop.toUpperCase() : `--${kebab(prop)}`;
    throw new UsageError(`${label} ${first.message} (usage: mailsvc admin ${commandLine(name, command)})`);
  }
  return { name, command, input, json: parsed.values.json === true };
}

async function forward(url: string, token: string, name: string, input: Record<string, unknown>) {
  const res = await fetch(`${url}/admin/v1/${name.replace('.', '/')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as {
    ok: boolean;
    error?: { code: string; message: string; details?: { path: string; message: string }[] };
  };
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
  if (args.length === 0 || args[0] === '--help' || args[0] === 'help') {
    io.stdout(adminUsage());
    return args.length === 0 ? 2 : 0;
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
      result = await forward(holder.adminUrl, token, parsed.name, parsed.input);
    } else {
      const { openRuntime } = await import('../runtime.js');
      const runtime = await openRuntime(config, { command: `admin ${parsed.name.replace('.', ' ')}` });
      try {
        result = await parsed.command.run(runtime.deps, parsed.input as never, 'admin:cli');
      } finally {
        await runtime.close();
      }
    }
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const detail = err.details?.map((d) => `${d.path} ${d.message}`).join('; ');
    io.stderr(`mailsvc admin: ${err.message}${detail ? ` (${detail})` : ''}`);
    return 1;
  }
  if (parsed.json) io.stdout(JSON.stringify(result));
  else printHuman(io, result);
  return 0;
}
