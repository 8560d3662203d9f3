// Screenshots of the dev inbox at 375 px and 1280 px, for a person to look at (not a test):
//   npx tsx packages/server/quality/inbox-screenshots.ts [outDir]      (default /tmp/shots-inbox)
// Starts `mailsvc start` on a temporary data directory and free ports, sends a few messages
// through the API, then drives headless Chromium over the list and a message (each tab), and
// checks on the way what a screenshot cannot show: no horizontal overflow, a link in the
// message frame opens a new tab, the list updates itself when mail arrives, delete works; and the
// Webhooks tab (with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true): a test event appears live, verified.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../templates/quality/chromium.js';
import { startMailsvc } from './mailsvc-process.js';

const outDir = process.argv[2] ?? '/tmp/shots-inbox';

async function send(base: string, apiKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base}/v1/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { messageId?: string };
  if (!res.ok || !json.messageId) throw new Error(`send failed: ${res.status} ${JSON.stringify(json)}`);
  return json.messageId;
}

/** Waits until the dev inbox API has the message (the worker delivers a moment after the accept). */
async function captured(base: string, to: string): Promise<{ id: string; codes: string[] }> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${base}/dev/inbox/api/messages/latest?to=${encodeURIComponent(to)}`);
    if (res.ok) return ((await res.json()) as { message: { id: string; codes: string[] } }).message;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing captured for ${to}`);
}

async function call(base: string, apiKey: string, path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} failed: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown> & { endpoint?: { endpointId: string } }>;
}

async function overflow(page: Page): Promise<string | null> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  return scroll > width ? `page is ${scroll} px wide in a ${width} px viewport` : null;
}

const findings: string[] = [];
const note = (line: string) => {
  findings.push(line);
  console.log(line);
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-shots-'));
fs.mkdirSync(outDir, { recursive: true });
const service = await startMailsvc(dataDir, {
  MAILSVC_INBOUND_ENABLED: 'false',
  MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true',
});
const { baseUrl: base, apiKey } = service;
const browser = await launchChromium('the inbox screenshot script');
try {
  await send(base, apiKey, {
    templateId: 'welcome',
    to: 'alexandria.montgomery-smythe@very-long-subdomain.example-company.co.uk',
    data: {},
  });
  await send(base, apiKey, {
    templateId: 'mention',
    to: 'jane@example.com',
    data: {
      intro: 'Sam mentioned you in “Q3 plan”.',
      actionButton: { label: 'Open the comment', url: 'https://app.example.com/c/42' },
    },
  });
  await send(base, apiKey, { templateId: 'login-code', to: 'Jane@Example.com', data: { code: '482913' } });
  const login = await captured(base, 'jane@example.com');
  note(`login code read through the API: ${login.codes.join(', ')}`);
  const catcher = await call(base, apiKey, '/v1/webhooks/create', {
    url: `${base}/dev/inbox/webhooks/catch`,
  });
  const endpointId = catcher.endpoint!.endpointId;

  for (const width of [375, 1280]) {
    const context = await browser.newContext({ viewport: { width, height: width < 600 ? 812 : 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));

    await page.goto(`${base}/dev/inbox`);
    await page.getByText('Live').waitFor();
    await page.screenshot({ path: path.join(outDir, `list-${width}.png`), fullPage: true });
    note(`${width}px list: ${(await overflow(page)) ?? 'no horizontal overflow'}`);

    // Live update: a message sent while the page is open appears without a reload.
    const to = `live-${width}@example.com`;
    await send(base, apiKey, { templateId: 'verification-code', to, data: { code: `${width}-77` } });
    await page.getByRole('link', { name: to }).waitFor({ timeout: 10_000 });
    note(`${width}px list: a new message appeared live`);

    await page.goto(`${base}/dev/inbox?tenant=${encodeURIComponent(await tenantOf(base))}`);
    await page.screenshot({ path: path.join(outDir, `list-filtered-${width}.png`), fullPage: true });

    await page.goto(`${base}/dev/inbox/${login.id}`);
    await page.screenshot({ path: path.join(outDir, `message-html-${width}.png`), fullPage: true });
    note(`${width}px message: ${(await overflow(page)) ?? 'no horizontal overflow'}`);
    for (const tab of ['text', 'headers', 'raw', 'checks']) {
      await page.getByRole('link', { name: tab[0]!.toUpperCase() + tab.slice(1), exact: true }).click();
      await page.locator(`#${tab}`).waitFor({ state: 'visible' });
      await page.screenshot({ path: path.join(outDir, `message-${tab}-${width}.png`), fullPage: true });
      const problem = await overflow(page);
      if (problem) note(`${width}px ${tab} tab: ${problem}`);
    }

    // A link in the sandboxed frame opens in a new tab.
    const mentionId = await latestId(base, 'mention');
    await page.goto(`${base}/dev/inbox/${mentionId}`);
    const popup = context.waitForEvent('page', { timeout: 5000 }).catch(() => null);
    await page.frameLocator('iframe').getByRole('link', { name: 'Open the comment' }).first().click();
    const opened = await popup;
    note(
      `${width}px frame link: ${opened ? `opened a new tab (${opened.url()})` : 'did NOT open a new tab'}`,
    );
    await opened?.close();
    await page.screenshot({ path: path.join(outDir, `message-mention-${width}.png`), fullPage: true });
    await page.getByRole('link', { name: 'Checks', exact: true }).click();
    await page.screenshot({ path: path.join(outDir, `message-mention-checks-${width}.png`), fullPage: true });

    // Delete from the page (same-origin fetch with DELETE).
    await page.goto(`${base}/dev/inbox/${await latestId(base, 'verification-code')}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${base}/dev/inbox`);
    note(`${width}px delete: back on the list, ${await page.locator('tbody tr').count()} messages`);

    // The Webhooks tab: a test event sent while the page is open appears, verified.
    await page.goto(`${base}/dev/inbox/webhooks`);
    await page.getByText('Live', { exact: true }).waitFor();
    const before = await page.locator('article.hook').count();
    await call(base, apiKey, '/v1/webhooks/test', { endpointId });
    await page.locator('article.hook').nth(before).waitFor({ timeout: 10_000 });
    const badge = await page.locator('article.hook .badge').first().textContent();
    note(`${width}px webhooks: a test event appeared live, ${badge}`);
    await page.screenshot({ path: path.join(outDir, `webhooks-${width}.png`), fullPage: true });
    note(`${width}px webhooks: ${(await overflow(page)) ?? 'no horizontal overflow'}`);
    if (errors.length > 0) note(`${width}px console errors: ${errors.join(' | ')}`);
    await context.close();
  }
} finally {
  await browser.close();
  await service.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(`\nscreenshots in ${outDir}`);

async function latestId(base: string, template: string): Promise<string> {
  const res = await fetch(`${base}/dev/inbox/api/messages/latest?template=${template}`);
  return ((await res.json()) as { message: { id: string } }).message.id;
}

async function tenantOf(base: string): Promise<string> {
  const res = await fetch(`${base}/dev/inbox/api/messages?limit=1`);
  return ((await res.json()) as { messages: { tenantId: string }[] }).messages[0]!.tenantId;
}
