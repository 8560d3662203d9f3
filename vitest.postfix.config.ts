// The Postfix peer suite (`npm run test:postfix`): the SMTP client (delivery/smtp/) against a
// private instance of Debian's Postfix that relays to an smtp-server sink in the test process.
// Needs Postfix and root (it starts its own master on free high ports, never port 25); skipped
// without them. `.ci/run` installs Postfix before it runs this suite.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/server/postfix/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    // Guards against hangs, not speed checks: Postfix relays 200 messages in a few seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
