import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './packages/testkit/slow-first-sequencer.js';

// Three projects. `npm test` runs all three on the embedded database (PGlite); CI's PostgreSQL
// pass runs only `database` (`vitest run --project database`), the files whose subject is what
// the database does, so nothing that does not depend on the backend runs twice.
//   unit      the tests next to the code (packages/*/src): no database, no process; threads.
//   service   tests of what sits around the database: the CLI's arguments, the client, the
//             wrapper, the OpenAPI document, the dev pages, HTTP's edges, the architecture map.
//   database  everything else under packages/*/test: the service on a real database.
// The integration projects run without isolation (isolate: false): a worker process keeps the
// modules it loaded for its next file instead of importing the server graph again for each one.
// Every file still gets its own app, database and clock from the harness; what a file must not
// do is leave global state behind (a changed process.env, an unrestored spy, a running timer).
// Measured: npm test 235 s against 347 s, the PostgreSQL pass 84 s against 134 s.

/** Integration files whose subject is not the database: run once, on PGlite. */
const SERVICE = [
  'packages/client/test/**/*.test.ts',
  'packages/wrapper/test/**/*.test.ts',
  'packages/server/test/architecture-map.test.ts',
  'packages/server/test/db-schema.test.ts',
  'packages/server/test/cli-usage.test.ts',
  'packages/server/test/dev-pages.test.ts',
  'packages/server/test/http-edge.test.ts',
  'packages/server/test/openapi.test.ts',
  'packages/server/test/openapi-client.test.ts',
  'packages/server/test/webhooks-listen.test.ts',
  'packages/server/test/domains-dns.test.ts',
];

// A guard against hangs, not a speed check: process-spawning tests take 20 s and more on a
// loaded 2-core machine, and a fresh embedded database 30 s (a newcomer's `npm test` failed at 60 s).
const timeouts = { testTimeout: 180_000, hookTimeout: 180_000 };

export default defineConfig({
  test: {
    // Two files at a time on the 2-core CI machine, not vitest's default of one fewer than the
    // cores (one at a time there): much of a file's time is spent waiting on PostgreSQL, PGlite
    // or a child process. Measured: PGlite 371 s against 482 s, PostgreSQL 242 s against 352 s.
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['packages/*/src/**/*.test.ts'], pool: 'threads', ...timeouts },
      },
      {
        extends: true,
        test: {
          name: 'service',
          isolate: false,
          include: SERVICE,
          globalSetup: ['packages/testkit/global-setup.ts'],
          pool: 'forks',
          ...timeouts,
        },
      },
      {
        extends: true,
        test: {
          name: 'database',
          isolate: false,
          include: ['packages/*/test/**/*.test.ts'],
          exclude: SERVICE,
          globalSetup: ['packages/testkit/global-setup.ts'],
          pool: 'forks',
          ...timeouts,
        },
      },
    ],
  },
});
