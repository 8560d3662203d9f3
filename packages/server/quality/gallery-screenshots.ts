// Screenshots of the template gallery as a developer sees it: `mailsvc start` on a temporary data
// directory and free ports, a brand on the demo project, then headless Chromium on the index and
// a template page (light and dark preview, the editor with an error, a send) at 1280 and 375 px.
// Also reports any page-level horizontal overflow and any console error (a CSP refusal shows
// there). Not a test: run `npx tsx packages/server/quality/gallery-screenshots.ts [outDir]`
// (default /tmp/shots-gallery) and look at the pictures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../templates/quality/chromium.js';
import { startMailsvc } from './mailsvc-process.js';

const OUT = path.resolve(process.argv[2] ?? '/tmp/shots-gallery');

/** The demo project, given a brand through the admin API (its token is kept in the data dir). */
async function brandDemoProject(baseUrl: string, dataDir: string): Promise<string> {
  const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const admin = async (action: string, body: unknown) => {
    const res = await fetch(`${baseUrl}/admin/v1/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${action}: ${JSON.stringify(json)}`);
    return json;
  };
  const { tenants } = (await admin('tenants/list', {})) as { tenants: { id: string; name: string }[] };
  const tenant = tenants.find((t) => t.name === 'Demo');
  if (!tenant) throw new Error('no demo tenant');
  const { projects } = (await admin('projects/list', { tenant: tenant.id })) as {
    projects: { id: string; name: string }[];
  };
  const demo = projects.find((p) => p.name === 'Demo App');
  if (!demo) throw new Error('no demo project');
  await admin('projects/update', {
    id: demo.id,
    brandColor: '#0f766e',
    postalAddress: 'Demo Inc.\n1 Market Street\nLisbon',
  });
  return demo.id;
}

async function check(page: Page, name: string, problems: string[]): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) problems.push(`${name}: the page scrolls sideways by ${overflow} px`);
  // From the top: typing scrolls the editor into view, and Chromium may not paint a frame that
  // was scrolled out of view into a full-page capture.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
  // The first screenful too: a long page shrinks too far to read when viewed whole.
  await page.screenshot({ path: path.join(OUT, `${name}-top.png`) });
  console.log(`wrote ${name}.png and ${name}-top.png`);
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-gallery-'));
  const service = await startMailsvc(dataDir);
  const { baseUrl } = service;
  const browser = await launchChromium('the gallery screenshot script');
  const problems: string[] = [];
  try {
    const projectId = await brandDemoProject(baseUrl, dataDir);
    for (const width of [1280, 375]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      page.on('console', (m) => {
        // The editor's invalid data is answered 400 on purpose; Chromium logs every 4xx fetch.
        if (m.type() === 'error' && !m.location().url.endsWith('/render'))
          problems.push(`${width}px console: ${m.text()} (${m.location().url})`);
      });
      page.on('pageerror', (err) => problems.push(`${width}px page error: ${err.message}`));
      // Nothing leaves the machine (a logo would fail to load, as offline mail does).
      await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());

      await page.goto(`${baseUrl}/dev/templates`);
      await check(page, `index-${width}`, problems);
      await page.fill('#q', 'billing card');
      await check(page, `index-filtered-${width}`, problems);

      await page.goto(`${baseUrl}/dev/templates/magic-link`);
      await check(page, `magic-link-light-${width}`, problems);
      await page.goto(`${baseUrl}/dev/templates/account-locked?project=${projectId}&scheme=dark`);
      await check(page, `account-locked-brand-dark-${width}`, problems);

      // The toolbar without a reload: dark, then 375 px wide, as the script does it.
      await page.goto(`${baseUrl}/dev/templates/login-code?project=${projectId}`);
      await page.check('input[name=scheme][value=dark]');
      await page.check('input[name=width][value="375"]');
      await page.waitForFunction(() =>
        document.getElementById('data-status')?.textContent?.startsWith('Valid'),
      );
      await check(page, `login-code-dark-toggled-${width}`, problems);

      // The editor: a bad value and a missing one, each shown with its path.
      await page.fill('#data', '{"code": "", "subject": 7}');
      await page.waitForFunction(() => !document.getElementById('errors')?.hidden);
      await check(page, `login-code-errors-${width}`, problems);

      await page.click('#reset');
      await page.waitForFunction(() =>
        document.getElementById('data-status')?.textContent?.startsWith('Valid'),
      );
      await page.click('#send-button');
      await page.waitForFunction(() =>
        /Accepted|Not sent/.test(document.getElementById('send-status')?.textContent ?? ''),
      );
      const sent = await page.textContent('#send-status');
      console.log(`${width}px send: ${sent}`);
      if (!sent?.startsWith('Accepted')) problems.push(`${width}px send: ${sent}`);
      await check(page, `login-code-sent-${width}`, problems);
      await page.close();
    }
  } finally {
    await browser.close();
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(problems.length === 0 ? 'no problems seen' : `problems:\n  ${problems.join('\n  ')}`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}

await main();
