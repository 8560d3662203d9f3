// `mailsvc start` as a person runs it, for the screenshot scripts and the console's browser tests:
// its CLI in its own process on a temporary data directory (embedded database, captured mail) and
// free ports, read until its banner, stopped with SIGINT (SIGKILL after 20 s).
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@mailsvc/testkit/free-port';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface RunningMailsvc {
  child: ChildProcess;
  baseUrl: string;
  /** The dev key the banner printed. */
  apiKey: string;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startMailsvc(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<RunningMailsvc> {
  const [port, wrapperPort, inboundPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(process.execPath, [path.join(ROOT, 'packages/server/bin/mailsvc.js'), 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      MAILSVC_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      MAILSVC_WRAPPER_PORT: String(wrapperPort),
      MAILSVC_INBOUND_PORT: String(inboundPort),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mailsvc start did not come up:\n${output}`)), 120_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Press Ctrl+C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mailsvc start exited with ${code}:\n${output}`));
    });
  });
  const apiKey = /API key\s+(msk_\S+)/.exec(output)?.[1];
  if (!apiKey) throw new Error(`no API key in the banner:\n${output}`);
  return {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
