import { loadConfig } from '../config.js';
import type { Deps } from '../domain/deps.js';
import { type RunningInbound, startInbound } from '../inbound/server.js';
import { openRuntime } from '../runtime.js';
import { StartupError } from '../startup-error.js';
import type { Io } from './main.js';
import { untilStopSignal } from './stop-signal.js';

/**
 * The inbound SMTP server beside `mailsvc start`'s API. A busy port does not stop `mailsvc
 * start`: the reason is returned for the banner instead.
 */
export async function startLocalInbound(deps: Deps): Promise<RunningInbound | string> {
  const { config } = deps;
  try {
    return await startInbound(deps, { port: config.MAILSVC_INBOUND_PORT, host: config.MAILSVC_INBOUND_HOST });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      return `port ${config.MAILSVC_INBOUND_PORT} on ${config.MAILSVC_INBOUND_HOST} is ${code === 'EADDRINUSE' ? 'in use' : 'not allowed'} (MAILSVC_INBOUND_PORT)`;
    throw err;
  }
}

/** `mailsvc inbound`: the SMTP server for bounces and complaints only. Run one per MX host. */
export async function runInbound(_args: string[], io: Io): Promise<number> {
  const config = loadConfig();
  if (!config.DATABASE_URL) {
    throw new StartupError(
      'needs DATABASE_URL (PostgreSQL). On the embedded database `mailsvc start` runs the inbound SMTP server in its own process.',
    );
  }
  const runtime = await openRuntime(config, { command: 'inbound' });
  let inbound: RunningInbound;
  try {
    inbound = await startInbound(runtime.deps, {
      port: config.MAILSVC_INBOUND_PORT,
      host: config.MAILSVC_INBOUND_HOST,
    });
  } catch (err) {
    await runtime.close();
    throw new StartupError(
      `cannot listen on ${config.MAILSVC_INBOUND_HOST}:${config.MAILSVC_INBOUND_PORT}: ${(err as Error).message}`,
    );
  }
  io.stdout(
    [
      '',
      'mailsvc inbound is running',
      `  SMTP       ${config.MAILSVC_INBOUND_HOST}:${inbound.port} (bounces, delivery notices, complaints)`,
      `  Database   ${runtime.database.location}`,
      '',
    ].join('\n'),
  );
  await untilStopSignal(io, 'mailsvc inbound');
  io.stdout('mailsvc inbound: stopping…');
  await inbound.close();
  await runtime.close();
  return 0;
}
