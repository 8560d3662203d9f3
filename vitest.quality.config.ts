// The mail-quality suite (`npm run test:quality`): every template version judged by tools nobody
// here wrote: SpamAssassin (`spamassassin -t -L`) and axe-core in headless Chromium, light and
// dark. `.ci/run` installs Debian's spamassassin and chromium before it runs this suite.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/quality/**/*.test.ts'],
    pool: 'forks',
    // Guards against hangs, not speed checks: SpamAssassin and Chromium each take seconds to start.
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
