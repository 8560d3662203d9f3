// The console's first page in headless Chromium (issue 29): `mailsvc start` as a person runs it,
// its owner signed in through the page, then the overview opened again and again in a fresh page
// (the script and styles from the browser's cache after the first, as a returning person has them,
// and once with the cache empty): time from navigation to the overview's data on screen (its chart,
// quota and messages), and the navigation timing of the document.
// Run: npx tsx bench/console-load.ts   (BENCH_SAMPLES, default 30)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signInThroughPage } from '../packages/server/quality/console-browser.js';
import { startMailsvc } from '../packages/server/quality/mailsvc-process.js';
import { launchChromium } from '../packages/templates/quality/chromium.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-console-load-'));
const svc = await startMailsvc(dataDir, { MAILSVC_INBOUND_ENABLED: 'false' });
const browser = await launchChromium('the console load benchmark');
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInThroughPage(page, svc.baseUrl, 'owner@example.com');
  const open = async (p: typeof page) => {
    const t = performance.now();
    await p.goto(`${svc.baseUrl}/console/`);
    await p.getByText('Used this month (tenant)').waitFor();
    await p.getByRole('img', { name: /Messages per day/ }).waitFor();
    await p.getByRole('heading', { name: 'The last 50 messages by status' }).waitFor();
    const shown = performance.now() - t;
    const nav = await p.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd };
    });
    return { shown, ...nav };
  };
  const cold = await (async () => {
    const fresh = await browser.newContext({ storageState: await context.storageState() });
    const p = await fresh.newPage();
    const r = await open(p);
    await fresh.close();
    return r;
  })();
  const runs: { shown: number; dcl: number; load: number }[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const p = await context.newPage();
    runs.push(await open(p));
    await p.close();
  }
  const row = (name: string, xs: number[]) =>
    console.log(
      `| ${name} | ${pct(xs, 0.5).toFixed(0)} | ${pct(xs, 0.95).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`,
    );
  console.log(`console first page in Chromium, ${SAMPLES} samples, load ${os.loadavg()[0]!.toFixed(2)}`);
  console.log(
    `empty cache: data on screen after ${cold.shown.toFixed(0)} ms, DOMContentLoaded ${cold.dcl.toFixed(0)} ms, load ${cold.load.toFixed(0)} ms`,
  );
  console.log('| warm cache | p50 ms | p95 ms | max ms |\n|---|---|---|---|');
  row(
    'navigation → overview data on screen',
    runs.map((r) => r.shown),
  );
  row(
    'DOMContentLoaded',
    runs.map((r) => r.dcl),
  );
  row(
    'load',
    runs.map((r) => r.load),
  );
} finally {
  await browser.close();
  await svc.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
