import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['packages/server/test/global-setup.ts'],
    pool: 'forks',
    // Two files at a time on the 2-core CI machine, not vitest's default of one fewer than the
    // cores (one at a time there): much of a file's time is spent waiting on PostgreSQL, PGlite
    // or a child process. Measured: PGlite 371 s against 482 s, PostgreSQL 242 s against 352 s.
    maxWorkers: Math.max(2, availableParallelism()),
    // A guard against hangs, not a speed check: process-spawning tests take 20 s and more on a
    // loaded 2-core machine, and a fresh embedded database 30 s (a newcomer's `npm test` failed at 60 s).
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
