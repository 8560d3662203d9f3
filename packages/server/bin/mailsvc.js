#!/usr/bin/env node
// Runs the CLI from a bundle of the TypeScript sources (build-cli.mjs), built here on the first
// run and whenever the sources changed, so `npx mailsvc` works right after `npm install` with no
// build step and starts in a fraction of the time tsx's loader takes. Where the bundle cannot be
// built (a read-only checkout) or MAILSVC_FROM_SOURCE=1 is set, the sources run through tsx.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

// `mailsvc start` keeps the embedded database's WebAssembly memory and the whole service in one
// process; it stays under 300 MB with V8's young generation at 4 MB semi-spaces instead of 16
// (bench/memory.ts). V8 takes that size only at start-up (v8.setFlagsFromString has no effect
// later), so a `mailsvc start` begun without it — through npx, the bin, a service manager — runs
// itself again with it, in a child that gets the terminal, the signals and the exit code.
const MEMORY_FLAGS = ['--max-semi-space-size=4'];
const hasMemoryFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
  a.startsWith('--max-semi-space-size'),
);
if (process.argv[2] === 'start' && !hasMemoryFlags && !process.env.MAILSVC_PARENT_PID) {
  const child = spawn(
    process.execPath,
    [...MEMORY_FLAGS, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    // Its own process group: a terminal's Ctrl+C reaches this process only, which passes it on.
    { stdio: 'inherit', detached: true, env: { ...process.env, MAILSVC_PARENT_PID: String(process.pid) } },
  );
  // Each signal is passed on once: a service manager that signals the whole group (systemd's
  // KillMode=control-group) and npx both deliver a second copy, which the child's stop ignores
  // anyway. The listener stays: a copy arriving after the first must not kill this process with
  // the default action (it would exit by the signal while the child is still stopping).
  const passedOn = new Set();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => {
      if (passedOn.has(signal)) return;
      passedOn.add(signal);
      child.kill(signal);
    });
  child.on('error', (err) => {
    console.error(`mailsvc: could not start: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
} else {
  if (process.env.MAILSVC_PARENT_PID) {
    // Run again by the lines above: if that parent is killed outright (SIGKILL, which it cannot
    // pass on), stop as on SIGTERM rather than hold the port and the data directory on our own.
    const parent = Number(process.env.MAILSVC_PARENT_PID);
    delete process.env.MAILSVC_PARENT_PID;
    setInterval(() => {
      if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
    }, 1000).unref();
  }
  const main = await loadMain();
  // `mailsvc … | head`: the reader went away; stop quietly instead of an unhandled EPIPE.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  process.exitCode = await main(process.argv.slice(2));
}

/** The CLI's main(): from the bundle of the current sources, else from the sources through tsx. */
async function loadMain() {
  if (process.env.MAILSVC_FROM_SOURCE !== '1') {
    let entry;
    try {
      const { buildCli, builtEntry, sourceFingerprint } = await import('./build-cli.mjs');
      const fingerprint = sourceFingerprint();
      entry = builtEntry(fingerprint) ?? (await buildCli(fingerprint));
    } catch (err) {
      console.error(
        `mailsvc: running from the TypeScript sources (could not build the CLI: ${String(err.message).split('\n')[0]})`,
      );
    }
    if (entry) {
      // Stack traces in logs name the TypeScript sources, as they do under tsx.
      process.setSourceMapsEnabled(true);
      return (await import(pathToFileURL(entry).href)).main;
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return (await import('../src/cli/main.ts')).main;
}
