import { defineConfig } from 'vitest/config';

// The tests of the Firebase kit (packages/wrapper/firebase): they import firebase-admin and nock
// from the kit's own node_modules, which `npm install` leaves out. Run by `npm run test:firebase`
// after it installs the kit.
export default defineConfig({
  test: {
    include: ['packages/wrapper/firebase/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 60_000,
  },
});
