// mailsvc wrapper: the template-route wrapper as a plain Node server, settings from the
// environment (MAILSVC_API_KEY, MAILSVC_CORE_URL, MAILSVC_ALLOWED_ORIGINS, …; see
// packages/wrapper/README.md). The same router the Firebase function runs.
import { StartupError } from '../startup-error.js';
import type { Io } from './main.js';
import { untilStopSignal } from './stop-signal.js';

export async function runWrapper(_args: string[], io: Io): Promise<number> {
  const { loadWrapperConfig, startWrapperServer, WrapperConfigError } = await import('@mailsvc/wrapper');
  let config: ReturnType<typeof loadWrapperConfig>;
  try {
    config = loadWrapperConfig();
  } catch (err) {
    if (err instanceof WrapperConfigError) {
      io.stderr(`mailsvc: ${err.message}`);
      return 1;
    }
    throw err;
  }
  let running: Awaited<ReturnType<typeof startWrapperServer>>;
  try {
    running = await startWrapperServer({ config });
  } catch (err) {
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      throw new StartupError(
        `port ${config.MAILSVC_WRAPPER_PORT} on ${config.MAILSVC_WRAPPER_HOST} is in use: stop what is using it, or set MAILSVC_WRAPPER_PORT`,
      );
    }
    throw err;
  }
  io.stdout(
    [
      '',
      'mailsvc wrapper is running',
      `  Wrapper    ${running.url}`,
      `  Core       ${config.MAILSVC_CORE_URL}`,
      `  Origins    ${config.MAILSVC_ALLOWED_ORIGINS.join(', ') || '(none: browser requests are refused)'}`,
      `  App Check  ${config.MAILSVC_REQUIRE_APP_CHECK ? 'required' : 'off'}`,
      `  OpenAPI    ${running.url}/openapi.json`,
      '',
      'Try it:',
      `  curl -s ${running.url}/auth/login-code -H 'Content-Type: application/json' \\`,
      `    -d '{"to":"jane@example.com","data":{"code":"482913"}}'`,
      '',
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await untilStopSignal(io, 'mailsvc wrapper');
  io.stdout('mailsvc: stopping the wrapper…');
  await running.close();
  return 0;
}
