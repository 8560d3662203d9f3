import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['packages/server/test/global-setup.ts'],
    pool: 'forks',
    // A guard against hangs, not a speed check: process-spawning tests take 20 s and more on a
    // loaded 2-core machine, and a fresh embedded database 30 s (a newcomer's `npm test` failed at 60 s).
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
