// What the console's browser tests share: signing in through the page with the code read from the
// dev inbox API, collecting console errors, axe-core over a page (serious and critical violations),
// horizontal overflow at a width, and screenshots kept for a person to look at.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Where screenshots go: CONSOLE_SCREENSHOTS, else artifacts/console-screenshots at the root. */
export const SCREENSHOT_DIR =
  process.env.CONSOLE_SCREENSHOTS ??
  path.join(path.dirname(new URL(import.meta.url).pathname), '../../../artifacts/console-screenshots');

export async function latestCode(baseUrl: string, to: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(
      `${baseUrl}/dev/inbox/api/messages/latest?to=${encodeURIComponent(to)}&template=login-code`,
    );
    if (res.ok) {
      const code = ((await res.json()) as { message: { codes: string[] } }).message.codes[0];
      if (code) return code;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no sign-in code reached the dev inbox for ${to}`);
}

/** Signs in through the sign-in page; answers when the overview shows. */
export async function signInThroughPage(page: Page, baseUrl: string, email: string): Promise<void> {
  await fetch(`${baseUrl}/dev/inbox/api/messages?to=${encodeURIComponent(email)}`, { method: 'DELETE' });
  await page.goto(`${baseUrl}/console/sign-in`);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  const code = await latestCode(baseUrl, email);
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/console/`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/** Console errors and failed requests of a page, from now on. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return errors;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (await page.evaluate(() => !('axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page as a global.
    const axe = (globalThis as any).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** How far the page is wider than the window, or null when it is not. */
export const horizontalOverflow = (page: Page) =>
  page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    return over > 1 ? `${over} px wider than the window` : null;
  });

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** A new context signed in as the state of `from` (its cookies), in a colour scheme and width. */
export async function contextLike(
  browser: Browser,
  from: BrowserContext,
  colorScheme: 'light' | 'dark',
  width: number,
): Promise<BrowserContext> {
  return browser.newContext({
    storageState: await from.storageState(),
    colorScheme,
    viewport: { width, height: 900 },
  });
}
