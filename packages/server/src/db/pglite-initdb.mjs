// Creates an embedded database cluster in the directory given as the first argument, then exits.
// Run as a child process by db/connection.ts when the data directory is new: PGlite's initdb grows
// the WebAssembly memory of the process that runs it to about 700 MB, which a process never gives
// back, so the service opens the finished cluster in its own process at a third of that.
import { PGlite } from '@electric-sql/pglite';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node pglite-initdb.mjs DIR\n');
  process.exit(2);
}
const db = await PGlite.create(dir);
await db.query('SELECT 1');
await db.close();
