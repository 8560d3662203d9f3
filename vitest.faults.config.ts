// The fault suite (`npm run test:faults`): real `mailsvc api` and `mailsvc worker` processes on
// PostgreSQL, killed, cut off from the database and refused by the relay under load. It stops and
// starts the PostgreSQL server, so its files never run in parallel.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/server/faults/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    // Guards against hangs, not speed checks; each test sets its own.
    testTimeout: 150_000,
    hookTimeout: 120_000,
  },
});
