// Full-page screenshots of chosen templates, for a person to look at: phone (375 px) and desktop
// (800 px) widths, light and dark. Nothing leaves the machine: the logo is served from memory.
//
//   npx tsx packages/templates/quality/screenshots.ts OUTDIR
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RenderContext } from '../src/model.js';
import { getFixture, getVersionForPreview, renderVersion, validateTemplateData } from '../src/registry.js';
import { launchChromium } from './chromium.js';

const LOGO_URL = 'https://cdn.acme.test/logo.svg';
// A 5:1 wordmark, like most logos a project would upload.
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="32" viewBox="0 0 160 32">' +
  '<rect width="32" height="32" rx="6" fill="#166534"/><path d="M9 23l7-14 7 14z" fill="#fff"/>' +
  '<text x="42" y="23" font-family="Arial,sans-serif" font-size="20" font-weight="700" fill="#166534">Acme Cloud</text></svg>';

const BASE: RenderContext = {
  projectName: 'Acme',
  environmentName: 'production',
  supportEmail: 'support@acme.test',
  unsubscribeUrl: 'https://mail.acme.test/u/tok',
  postalAddress: 'Acme Inc.\n1 Market Street, Suite 200\nLisbon 1100-148, Portugal',
};
const BRANDED: RenderContext = {
  ...BASE,
  projectName: 'Acme Cloud',
  brandColor: '#166534',
  logoUrl: LOGO_URL,
};
// Another URL: Chromium would show the logo it already holds from an earlier shot.
const BRANDED_LOGO_BLOCKED: RenderContext = { ...BRANDED, logoUrl: 'https://cdn.acme.test/blocked-logo.svg' };

interface Shot {
  name: string;
  templateId: string;
  version: string;
  ctx: RenderContext;
  data?: Record<string, unknown>;
  /** Let the logo load; otherwise it is blocked, as many mail clients do by default. */
  isLogoServed?: boolean;
}

const SHOTS: Shot[] = [
  { name: 'login-code', templateId: 'login-code', version: 'v1', ctx: BASE },
  { name: 'account-locked', templateId: 'account-locked', version: 'v1', ctx: BASE },
  { name: 'payment-receipt', templateId: 'payment-receipt', version: 'v1', ctx: BASE },
  {
    name: 'mention-unsubscribe-address',
    templateId: 'mention',
    version: 'v1',
    ctx: BASE,
    data: { notice: '@jane can you look at the Q4 roadmap before Friday?' },
  },
  {
    name: 'task-assigned-branded-logo',
    templateId: 'task-assigned',
    version: 'v1',
    ctx: BRANDED,
    isLogoServed: true,
  },
  {
    name: 'password-reset-branded-logo-blocked',
    templateId: 'password-reset',
    version: 'v1',
    ctx: BRANDED_LOGO_BLOCKED,
  },
  { name: 'welcome-v2-compact-branded', templateId: 'welcome', version: 'v2', ctx: BRANDED },
];

const WIDTHS = [375, 800] as const;
const SCHEMES = ['light', 'dark'] as const;

async function main(outDir: string | undefined): Promise<void> {
  if (!outDir) throw new Error('usage: npx tsx packages/templates/quality/screenshots.ts OUTDIR');
  mkdirSync(outDir, { recursive: true });
  const browser = await launchChromium('the screenshot script');
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    let isLogoServed = false;
    await page.route('**/*', (route) =>
      isLogoServed && route.request().url() === LOGO_URL
        ? route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG })
        : route.abort(),
    );
    for (const shot of SHOTS) {
      const version = getVersionForPreview(shot.templateId, shot.version);
      const checked = validateTemplateData(version, { ...getFixture(version), ...shot.data });
      if (!checked.ok) throw new Error(`${shot.name}: ${JSON.stringify(checked.errors)}`);
      const { html } = renderVersion(version, checked.data, shot.ctx);
      isLogoServed = shot.isLogoServed === true;
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 600 });
        await page.setContent(html, { waitUntil: 'load' });
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          const path = join(outDir, `${shot.name}-${width}-${scheme}.png`);
          await page.screenshot({ path, fullPage: true });
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          console.log(`${path}${overflow > 0 ? `  OVERFLOWS by ${overflow}px` : ''}`);
        }
      }
    }
  } finally {
    await browser.close();
  }
}

await main(process.argv[2]);
