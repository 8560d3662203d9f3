// Bounce and complaint reading, reports per second on one core: parseReport (the MIME walk plus
// the DSN / ARF / plain-text reading) over the fixture corpus and the bounce corpus
// (inbound/corpus: every reporting system's layout × every diagnostic), against mailparser's
// simpleParser reading the same messages (the baseline, in the same run: it only decodes, it reads
// no report).
// Run: npx tsx bench/feedback.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { corpusSamples } from '../packages/server/src/inbound/corpus/samples.js';
import { parseReport } from '../packages/server/src/inbound/parse-report.js';

const dir = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../packages/server/src/inbound/fixtures',
);
const corpus = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.eml'))
  .map((f) => fs.readFileSync(path.join(dir, f)))
  .concat(corpusSamples().map((sample) => Buffer.from(sample.raw)));

async function perSecond(fn: (raw: Buffer) => unknown, ms = 1500): Promise<number> {
  for (let i = 0; i < 3; i++) for (const raw of corpus) await fn(raw); // warm up
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < end) {
    for (const raw of corpus) await fn(raw);
    n += corpus.length;
    now = process.hrtime.bigint();
  }
  return Math.round(n / (Number(now - start) / 1e9));
}

const bytes = corpus.reduce((sum, raw) => sum + raw.length, 0);
const ours = await perSecond((raw) => parseReport(raw));
const baseline = await perSecond((raw) => simpleParser(raw));
console.log(
  `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}; ${corpus.length} samples, ${bytes} bytes`,
);
console.log(`parseReport            ${ours.toLocaleString('en')} reports/s`);
console.log(`mailparser (baseline)  ${baseline.toLocaleString('en')} messages/s`);
console.log(`ratio                  ${(ours / baseline).toFixed(1)}×`);
