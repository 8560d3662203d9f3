// npm run bench [name…]: runs the benchmarks (each measures its own baseline in the same run;
// figures go to bench/RESULTS.md by hand). With no name, all of them, one after another.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const BENCHES = {
  render: 'template rendering, validate + render per second (one core)',
  accept: 'POST /v1/send against PostgreSQL vs a one-INSERT baseline, and p99 at 1,000/s',
  delivery: 'worker → SMTP sink vs raw nodemailer; pick-up latency',
  feedback: 'bounce and complaint reading (fixture corpus) vs mailparser on the same messages',
  'contacts-list':
    'POST /v1/contacts/list on a 100,000-contact tenant: timings per query shape (--plans: EXPLAIN ANALYZE)',
  bulk: 'POST /v1/contacts/send to a 100,000-contact group and its dry run vs a bare INSERT … SELECT',
  import: 'mailsvc contacts import of a 100,000-row CSV on PostgreSQL, contacts/s',
  webhooks: 'webhook events delivered by a worker vs raw fetch POSTs of the same bodies',
  domains: 'DNS checks of 1,000 domains by a worker (domains/s), and mail delivery during the sweep',
  'messages-list': 'POST /v1/messages/list at 10,000,000 messages on PostgreSQL vs a bare SELECT … LIMIT',
  console:
    'the console’s first page (overview) at 10,000,000 messages on PostgreSQL vs a bare SELECT … LIMIT',
  'console-load':
    'the console’s overview in headless Chromium on mailsvc start: navigation to its data on screen',
  memory: 'resident memory of mailsvc start: after start, with the console loaded, after 3,000 sends',
};
const names = process.argv.slice(2);
for (const name of names) {
  if (!(name in BENCHES)) {
    console.error(`unknown benchmark ${name}; choose from ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
}
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
  console.log(`\n== bench/${name}.ts: ${BENCHES[name]} ==`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
