// The gallery's preview width as Chromium lays it out: the 375 and 800 px toggles make the frame
// exactly that wide (the mail's viewport, inside the frame's border) at every screen width; where
// the column is narrower the area around the frame scrolls sideways, never the page.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGalleryVersion, GALLERY_CONTEXT, renderTemplatePage } from '../src/gallery.js';
import { launchChromium } from './chromium.js';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium('the gallery layout check');
  page = await browser.newPage();
  // Nothing leaves the machine (the page's script and any image are not needed for the layout).
  await page.route('**/*', (route) => route.abort());
});

afterAll(async () => {
  await browser?.close();
});

function templatePage(width: 375 | 800): string {
  const { template, version } = findGalleryVersion('login-code', 'v1');
  return renderTemplatePage({
    template,
    version,
    context: GALLERY_CONTEXT,
    scheme: 'light',
    width,
    view: 'html',
    projects: [],
    exampleSend: { isPossible: false, note: '' },
  });
}

async function measure(screen: number, width: 375 | 800) {
  await page.setViewportSize({ width: screen, height: 900 });
  await page.setContent(templatePage(width));
  return page.evaluate(() => {
    const frame = document.getElementById('frame')!;
    const area = frame.parentElement!;
    return {
      frame: frame.clientWidth,
      areaScrolls: area.scrollWidth > area.clientWidth,
      pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
    };
  });
}

describe('the gallery preview width', () => {
  it('is 800 px on a 1280 px screen, whole, without a scroll bar (it was 772 px)', async () => {
    expect(await measure(1280, 800)).toEqual({ frame: 800, areaScrolls: false, pageScrolls: false });
    expect(await measure(1280, 375)).toEqual({ frame: 375, areaScrolls: false, pageScrolls: false });
  });

  it('stays the chosen width on narrower screens: the preview area scrolls, the page does not', async () => {
    for (const screen of [1100, 700, 375])
      expect(await measure(screen, 800), `${screen} px screen`).toEqual({
        frame: 800,
        areaScrolls: true,
        pageScrolls: false,
      });
    expect(await measure(1920, 800)).toEqual({ frame: 800, areaScrolls: false, pageScrolls: false });
    expect((await measure(375, 375)).frame).toBe(375);
  });
});
