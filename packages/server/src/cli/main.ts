import fs from 'node:fs';
import { ConfigError } from '../config.js';
import { DataDirLockedError } from '../db/lock.js';
import { StartupError } from '../startup-error.js';

// Commands are imported when run: `mailsvc admin` talking to a running server should not pay
// for loading Fastify and PGlite.

export const USAGE = `Usage: mailsvc <command>

Commands:
  start                 API, delivery worker, wrapper and dev pages in one process (embedded PGlite unless DATABASE_URL)
  api                   the core HTTP API only (stateless; run many)
  worker                the delivery worker only (run many on one PostgreSQL)
  inbound               the SMTP server reading bounces and complaints (MAILSVC_INBOUND_PORT, PostgreSQL)
  wrapper               the template-route wrapper (one POST route per template) as a plain server
  migrate               apply database migrations
  admin <group> <action> [--json]
                        plans, tenants, projects, environments, keys, domains, usage, recipients,
                        suppressions, jobs, audit, events, members, bootstrap
                        (mailsvc admin --help lists them)
  contacts import --environment ENV_ID --file FILE [--group SLUG]
                        a CSV file into the contacts of the environment's tenant
  templates list|show|render
                        the template catalogue (mailsvc templates --help)
  webhooks listen --forward-to URL [--events TYPE,…]
                        forward an environment's webhook events to an app on this machine, over
                        the API (MAILSVC_URL, MAILSVC_API_KEY; mailsvc webhooks --help)
  docs                  regenerate docs/configuration.md, docs/errors.md and docs/openapi.json
  --version, -v         print the version

Configuration comes from environment variables: see docs/configuration.md.`;

/**
 * The version of the repository's package.json; while the root declares none, that of
 * @mailsvc/server, the package that carries the bin (the workspaces move in lockstep).
 */
export function mailsvcVersion(): string {
  for (const file of ['../../../../package.json', '../../package.json']) {
    try {
      const { version } = JSON.parse(fs.readFileSync(new URL(file, import.meta.url), 'utf8')) as {
        version?: string;
      };
      if (version) return version;
    } catch {
      // not in a checkout (an installed package): the next candidate
    }
  }
  return 'unknown';
}

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export const processIo: Io = {
  stdout: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
  stderr: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
};

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  // Commands that start something print the usage for --help instead of starting.
  if (
    ['start', 'api', 'worker', 'inbound', 'wrapper', 'migrate'].includes(command ?? '') &&
    (rest.includes('--help') || rest.includes('-h'))
  ) {
    io.stdout(USAGE);
    return 0;
  }
  try {
    switch (command) {
      case 'start':
        return await (await import('./serve.js')).runServe('start', rest, io);
      case 'api':
        return await (await import('./serve.js')).runServe('api', rest, io);
      case 'worker':
        return await (await import('./worker.js')).runWorker(rest, io);
      case 'inbound':
        return await (await import('./inbound.js')).runInbound(rest, io);
      case 'wrapper':
        return await (await import('./wrapper.js')).runWrapper(rest, io);
      case 'migrate':
        return await (await import('./migrate.js')).runMigrate(rest, io);
      case 'admin':
        return await (await import('./admin.js')).runAdmin(rest, io);
      case 'contacts':
        return await (await import('./contacts.js')).runContacts(rest, io);
      case 'templates':
        return await (await import('./templates.js')).runTemplates(rest, io);
      case 'webhooks':
        return await (await import('./webhooks.js')).runWebhooks(rest, io);
      case 'docs':
        return await (await import('./docs.js')).runDocs(rest, io);
      case '--version':
      case '-v':
        io.stdout(`mailsvc ${mailsvcVersion()}`);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        io.stderr(`mailsvc: unknown command '${command}'. Run 'mailsvc --help'.`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr(`mailsvc: ${err.message}`);
      return 1;
    }
    if (err instanceof StartupError) {
      io.stderr(`mailsvc ${command}: ${err.message}`);
      return 1;
    }
    if (err instanceof DataDirLockedError) {
      io.stderr(`mailsvc: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
