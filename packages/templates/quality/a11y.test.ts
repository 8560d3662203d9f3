// Every template version, rendered from its fixture, judged by axe-core in headless Chromium in
// light and dark mode, with the default brand and with a project's own colour and logo. Any
// serious or critical violation fails (colour contrast, link names, image alt text, …).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templates } from '../src/catalogue/index.js';
import type { RenderContext } from '../src/model.js';
import { getFixture, renderVersion, validateTemplateData } from '../src/registry.js';
import { launchChromium } from './chromium.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const BASE: RenderContext = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/tok',
  postalAddress: 'Acme Inc.\n1 Market Street, Suite 200\nLisbon 1100-148, Portugal',
};

const CONTEXTS: ReadonlyArray<readonly [string, RenderContext]> = [
  ['default brand', BASE],
  // A dark green (white on it: 7.1:1) and a logo that cannot load offline: its alt text shows.
  ['green brand + logo', { ...BASE, brandColor: '#166534', logoUrl: 'https://cdn.acme.test/logo.png' }],
];

const SCHEMES = ['light', 'dark'] as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium('the accessibility suite');
  page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  // Nothing leaves the machine: the logo (and anything else) fails to load, as offline mail does.
  await page.route('**/*', (route) => route.abort());
});

afterAll(async () => {
  await browser?.close();
});

async function seriousViolations(html: string): Promise<Record<(typeof SCHEMES)[number], AxeViolation[]>> {
  await page.setContent(html);
  // setContent rewrites the document but keeps the window, and axe with it: parsing axe's
  // half a megabyte again for every message would cost more than the checks.
  if (await page.evaluate(() => !('axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const found = { light: [] as AxeViolation[], dark: [] as AxeViolation[] };
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    const violations = await page.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page as a global.
      const axe = (globalThis as any).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations as AxeViolation[];
    });
    found[scheme] = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  }
  return found;
}

const versions = templates.flatMap((t) =>
  t.versions.map((v) => [`${t.id} ${v.version} (${v.status})`, v] as const),
);

describe('accessibility (axe-core in Chromium, light and dark)', () => {
  it.each(versions)('%s has no serious or critical violations', async (name, version) => {
    const checked = validateTemplateData(version, getFixture(version));
    if (!checked.ok) throw new Error(`the fixture of ${name} fails its schema`);
    const problems: string[] = [];
    for (const [label, ctx] of CONTEXTS) {
      const { html } = renderVersion(version, checked.data, ctx);
      const found = await seriousViolations(html);
      for (const scheme of SCHEMES) {
        for (const v of found[scheme]) {
          for (const node of v.nodes) {
            problems.push(
              `${name} · ${label} · ${scheme} · ${v.id} (${v.impact}) at ${JSON.stringify(node.target)}: ${v.help}. ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`,
            );
          }
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
