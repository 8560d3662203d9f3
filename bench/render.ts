// Renders per second on one core: validate + render, and render alone, for account-locked and
// for every template (the slowest is reported). Baseline in the same run: JSON.stringify of the
// same data, so figures from different machines can be compared as ratios.
// Run: npx tsx bench/render.ts
import os from 'node:os';
import {
  getFixture,
  getTemplate,
  listTemplates,
  renderVersion,
  type TemplateVersion,
  validateTemplateData,
} from '@mailsvc/templates';

const ctx = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/t',
};

function opsPerSecond(fn: () => void, ms = 400): number {
  for (let i = 0; i < 2000; i++) fn(); // warm up
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 200; i++) fn();
    n += 200;
    now = process.hrtime.bigint();
  }
  return Math.round(n / (Number(now - start) / 1e9));
}

function measure(v: TemplateVersion) {
  const fixture = getFixture(v);
  const checked = validateTemplateData(v, fixture);
  if (!checked.ok) throw new Error(`fixture of ${v.templateId} is invalid`);
  return {
    id: `${v.templateId} ${v.version}`,
    renderOnly: opsPerSecond(() => renderVersion(v, checked.data, ctx)),
    validateAndRender: opsPerSecond(() => {
      const r = validateTemplateData(v, fixture);
      if (r.ok) renderVersion(v, r.data, ctx);
    }),
    baseline: opsPerSecond(() => JSON.stringify(fixture)),
  };
}

const all = listTemplates()
  .flatMap((t) => t.versions.filter((v) => v.status === 'published'))
  .map(measure);
const locked = measure(getTemplate('account-locked', 'v1').version);
const slowest = all.reduce((a, b) => (b.validateAndRender < a.validateAndRender ? b : a));
const fmt = (n: number) => n.toLocaleString('en-US');
console.log(
  `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} (${os.cpus().length} cores; this bench uses one)`,
);
console.log('| template | render only /s | validate + render /s | JSON.stringify baseline /s |');
console.log('|---|---|---|---|');
for (const r of [locked, slowest]) {
  console.log(`| ${r.id} | ${fmt(r.renderOnly)} | ${fmt(r.validateAndRender)} | ${fmt(r.baseline)} |`);
}
const median = [...all].sort((a, b) => a.validateAndRender - b.validateAndRender)[
  Math.floor(all.length / 2)
]!;
console.log(
  `\nall ${all.length} published versions: median validate + render ${fmt(median.validateAndRender)}/s, slowest ${slowest.id}`,
);
