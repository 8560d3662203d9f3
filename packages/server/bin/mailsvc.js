#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npx mailsvc` works right after
// `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
// `mailsvc … | head`: the reader went away; stop quietly instead of an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
