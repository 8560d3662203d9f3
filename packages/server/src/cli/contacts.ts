// `mailsvc contacts import --environment ENV_ID --file FILE [--group SLUG] [--json]`: a CSV file
// into the contacts of the environment's tenant (domain/contacts/import-contacts.ts), against the
// database as `mailsvc admin` runs it: PostgreSQL with DATABASE_URL, else the embedded database
// (which a running `mailsvc start` holds: stop it first). Skipped rows go to stderr with their
// line; a progress bar (rows/s) on a terminal, a line per 10,000 rows otherwise; the summary on
// stdout. Exit 0 when the file was read (rows may have been skipped), 2 for bad arguments or a
// file that cannot be imported, 1 for an unknown environment.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { GROUP_SLUG_PATTERN } from '@mailsvc/contract/api';
import { loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/lock.js';
import {
  type ImportProgress,
  ImportRefusedError,
  importContacts,
} from '../domain/contacts/import-contacts.js';
import type { Io } from './main.js';

const USAGE = `Usage: mailsvc contacts import --environment ENV_ID --file FILE [--group SLUG] [--json]

  Imports a CSV file into the contacts of the environment's tenant. The first line names the
  columns: email (required), name, and any other column is a custom field. Rows are checked as
  POST /v1/contacts/upsert checks a contact; an invalid row is reported with its line and skipped.
  An email already a contact is updated (an empty cell changes nothing). --group adds every
  imported contact to that group (created when missing).`;

const ENVIRONMENT_ID = /^env_[0-9A-HJKMNP-TV-Z]{26}$/;
const PLAIN_EVERY = 10_000;

/** Where the progress goes: a redrawn bar on a terminal, else a plain line now and then. */
export interface ProgressSink {
  isTty: boolean;
  write(s: string): void;
}

const processSink: ProgressSink = {
  isTty: Boolean(process.stderr.isTTY),
  write: (s) => process.stderr.write(s),
};

const n = (x: number) => x.toLocaleString('en');

function progressReporter(sink: ProgressSink, io: Io, totalBytes: number, started: number) {
  let shown = '';
  let nextPlain = PLAIN_EVERY;
  const rate = (rows: number) => Math.round(rows / Math.max(0.001, (performance.now() - started) / 1000));
  return {
    update(p: ImportProgress) {
      if (sink.isTty) {
        const share = totalBytes > 0 ? Math.min(1, p.bytes / totalBytes) : 0;
        const width = 30;
        const done = Math.round(share * width);
        shown = `[${'#'.repeat(done)}${'-'.repeat(width - done)}] ${Math.floor(share * 100)}%  ${n(p.rows)} rows  ${n(rate(p.rows))} rows/s`;
        sink.write(`\r${shown}\x1b[K`);
      } else if (p.rows >= nextPlain) {
        io.stderr(`${n(p.rows)} rows read (${n(rate(p.rows))} rows/s)`);
        nextPlain = (Math.floor(p.rows / PLAIN_EVERY) + 1) * PLAIN_EVERY;
      }
    },
    /** A line above the bar. */
    say(line: string) {
      if (sink.isTty && shown) sink.write('\r\x1b[K');
      io.stderr(line);
      if (sink.isTty && shown) sink.write(`\r${shown}\x1b[K`);
    },
    end() {
      if (sink.isTty && shown) sink.write('\r\x1b[K');
    },
  };
}

interface ImportArgs {
  environment: string;
  file: string;
  group?: string;
  json?: boolean;
  /** The file's size in bytes, for the progress bar. */
  size: number;
}

/** The import's arguments, checked before any database is opened; else what is wrong with them. */
function parseImportArgs(rest: string[]): { ok: true; args: ImportArgs } | { ok: false; problem: string } {
  const problem = (p: string) => ({ ok: false as const, problem: p });
  let values: { environment?: string; file?: string; group?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        environment: { type: 'string' },
        file: { type: 'string' },
        group: { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return problem((err as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, ''));
  }
  if (!values.environment) return problem('--environment is required');
  if (!ENVIRONMENT_ID.test(values.environment))
    return problem('--environment: expected an environment id like env_01J…');
  if (!values.file) return problem('--file is required');
  let size: number;
  try {
    const stat = fs.statSync(values.file);
    if (!stat.isFile()) return problem(`--file: ${values.file} is not a file`);
    size = stat.size;
  } catch (err) {
    return problem(`--file: cannot read ${values.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (values.group !== undefined && !new RegExp(GROUP_SLUG_PATTERN).test(values.group))
    return problem(
      `--group "${values.group}" is not a group slug: lowercase letters, digits and hyphens, at most 63`,
    );
  return { ok: true, args: { ...values, environment: values.environment, file: values.file, size } };
}

/** The runtime against the database; undefined (said on stderr) when a running server holds it. */
async function openImportRuntime(io: Io) {
  const config = loadConfig();
  const { openRuntime } = await import('../runtime.js');
  try {
    return await openRuntime(config, { command: 'contacts import' });
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    // Unlike admin commands, an import is not forwarded to the running server: it writes
    // directly, and the embedded database takes one process at a time.
    io.stderr(
      `mailsvc contacts import: \`mailsvc ${err.holder.command}\` (pid ${err.holder.pid}) holds the embedded database in ${err.dataDir}. ` +
        'Stop it (Ctrl+C; the data stays), run the import, and start it again; or, without stopping it, ' +
        'load contacts through POST /v1/contacts/upsert-many (1,000 per call). On PostgreSQL (DATABASE_URL) the import runs beside the service.',
    );
    return undefined;
  }
}

export async function runContacts(args: string[], io: Io, sink: ProgressSink = processSink): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || ['--help', '-h', 'help'].includes(action) || rest.includes('--help')) {
    io.stdout(USAGE);
    return action === undefined ? 2 : 0;
  }
  const usage = (message: string) => {
    io.stderr(
      `mailsvc contacts: ${message} (usage: mailsvc contacts import --environment ENV_ID --file FILE [--group SLUG] [--json])`,
    );
    return 2;
  };
  if (action !== 'import') return usage(`unknown action '${action}'`);
  const parsed = parseImportArgs(rest);
  if (!parsed.ok) return usage(parsed.problem);
  const values = parsed.args;
  const runtime = await openImportRuntime(io);
  if (!runtime) return 1;
  const started = performance.now();
  const progress = progressReporter(sink, io, values.size, started);
  try {
    const summary = await importContacts(runtime.deps, {
      environmentId: values.environment,
      input: fs.createReadStream(values.file),
      groupSlug: values.group,
      actor: 'admin:cli',
      onProgress: (p) => progress.update(p),
      onSkippedRow: (line, reason) => progress.say(`line ${line}: ${reason}`),
    });
    progress.end();
    const seconds = (performance.now() - started) / 1000;
    if (values.json) io.stdout(JSON.stringify(summary));
    else
      io.stdout(
        `${n(summary.rows)} rows: ${n(summary.created)} created, ${n(summary.updated)} updated, ${n(summary.skipped)} skipped (${seconds.toFixed(1)} s, ${n(Math.round(summary.rows / Math.max(seconds, 0.001)))} rows/s)`,
      );
    return 0;
  } catch (err) {
    progress.end();
    if (!(err instanceof ImportRefusedError)) throw err;
    io.stderr(`mailsvc contacts import: ${err.message}`);
    return err.isNotFound ? 1 : 2;
  } finally {
    await runtime.close();
  }
}
