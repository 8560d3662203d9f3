// Runs the `mailsvc` command as a user does: a separate process from the bin, with only the
// environment given (no inherited configuration), its output and exit code collected.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { backend } from './harness.js';

/** The server's bin (packages/server/bin/mailsvc.js), beside this package in the workspace. */
export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../server/bin/mailsvc.js');

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a command on a data directory (and on PostgreSQL, the test database). */
export function baseEnv(dataDir: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: os.tmpdir(),
    MAILSVC_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // Parallel test files each start a server: a free port each instead of 2525.
    MAILSVC_INBOUND_PORT: '0',
  };
  if (backend === 'postgres') env.DATABASE_URL = process.env.TEST_DATABASE_URL!;
  return env;
}

export function run(args: string[], env: Record<string, string>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A data directory path that does not exist (an operator's mistake must not create it). */
export const absentDir = () =>
  path.join(os.tmpdir(), `mailsvc-absent-${process.pid}-${Math.random().toString(36).slice(2)}`);

/** Refused with exit code 1 and one line on stderr that says `text`. */
export function expectOneLine(r: Result, text: string): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toContain(text);
}
