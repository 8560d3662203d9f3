// Summarises a V8 CPU profile (node --cpu-prof) by where its time went: self time per function
// (name, file and line), and per file's package or area, as shares of the samples. Run:
// node bench/cpu-profile-summary.mjs PROFILE.cpuprofile [top N functions, default 30] [--after SECONDS]
// (--after: only the samples taken that long after the profile began, to leave start-up out)
import fs from 'node:fs';

const args = process.argv.slice(2);
const afterAt = args.indexOf('--after');
const afterUs = afterAt >= 0 ? Number(args.splice(afterAt, 2)[1]) * 1e6 : 0;
const [file, topArg] = args;
if (!file) {
  console.error('usage: node bench/cpu-profile-summary.mjs PROFILE.cpuprofile [N]');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const top = Number(topArg ?? 30);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// Self time: each sample's interval goes to the node it hit.
const self = new Map();
let at = 0;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0;
  if (at < afterUs) continue;
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** The package or area a script belongs to. */
function area(url) {
  if (!url) return '(native, GC, idle)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node (built-in)';
  // the CLI's bundle (bin/build-cli.mjs): one area for our bundled packages
  if (/\/dist\/cli-[0-9a-f]+\//.test(url)) return '@mailsvc (the bundled CLI)';
  const m = /packages\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (m) return `@mailsvc/${m[1]} ${m[2].replace(/\.[jt]s$/, '')}`;
  return url.replace(/^file:\/\//, '');
}

const byFunction = new Map();
const byArea = new Map();
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  const where = callFrame.url
    ? `${callFrame.url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${callFrame.lineNumber + 1}`
    : '';
  const name = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  const a = callFrame.url ? area(callFrame.url) : callFrame.functionName || '(native)';
  byArea.set(a, (byArea.get(a) ?? 0) + us);
}
const pct = (us) => `${((100 * us) / total).toFixed(1)}%`;
console.log(
  `${file}: ${(total / 1e6).toFixed(2)} s sampled${afterUs ? ` (from ${afterUs / 1e6} s on)` : ''}\n`,
);
console.log('| area | self time |\n|---|---|');
for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1]).slice(0, 20))
  console.log(`| ${a} | ${pct(us)} |`);
console.log(`\n| function (top ${top}) | self time |\n|---|---|`);
for (const [f, us] of [...byFunction].sort((x, y) => y[1] - x[1]).slice(0, top))
  console.log(`| ${f} | ${pct(us)} |`);
