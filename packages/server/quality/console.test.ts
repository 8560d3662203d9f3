// The console in headless Chromium (issue 29), against `mailsvc start` as a person runs it: sign in
// with the code read from the dev inbox API; every page loads with data, without console errors,
// with no serious or critical axe-core violation in light and dark, and without horizontal overflow
// at 375 px (screenshots at 1280 and 375 px kept in artifacts/console-screenshots); the main flows
// end to end; and the CSP is enforced (an injected inline script does not run).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type DnsTestServer, startDnsServer } from '@mailsvc/testkit/dns-server';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../templates/quality/chromium.js';
import { totpCodeAt } from '../src/domain/console/totp.js';
import {
  collectErrors,
  contextLike,
  horizontalOverflow,
  latestCode,
  screenshot,
  seriousViolations,
  signInThroughPage,
} from './console-browser.js';
import { type RunningMailsvc, startMailsvc } from './mailsvc-process.js';

const OWNER = 'owner@example.com';
let svc: RunningMailsvc;
let dns: DnsTestServer;
let browser: Browser;
let signedIn: BrowserContext;
let dataDir: string;
let messageId: string;

async function api(pathname: string, body: unknown, apiKey = svc.apiKey) {
  const res = await fetch(`${svc.baseUrl}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function seed() {
  const sent = await api('/v1/send', {
    templateId: 'login-code',
    to: 'jane@example.com',
    data: { code: '482913' },
    metadata: { orderId: 'A-1001', userId: 'u_42' },
  });
  messageId = sent.messageId as string;
  await api('/v1/send', { templateId: 'welcome', to: 'sam@example.com', data: {} });
  await api('/v1/send', {
    templateId: 'welcome',
    to: 'later@example.com',
    data: {},
    scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  await api('/v1/suppressions/add', { email: 'blocked@example.com', note: 'asked support' });
  await api('/v1/contacts/upsert', {
    email: 'contact@example.com',
    name: 'Casey Contact',
    groupSlugs: ['beta-testers'],
  });
}

beforeAll(async () => {
  dns = await startDnsServer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-console-'));
  svc = await startMailsvc(dataDir, {
    MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    MAILSVC_DNS_SERVERS: dns.server,
    MAILSVC_INBOUND_ENABLED: 'false',
  });
  browser = await launchChromium('the console browser tests');
  await seed();
  signedIn = await browser.newContext();
  const page = await signedIn.newPage();
  await signInThroughPage(page, svc.baseUrl, OWNER);
  await page.close();
});

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await dns?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function openPage(
  context: BrowserContext,
  pathname: string,
): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors = collectErrors(page);
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${svc.baseUrl}/console${pathname}`);
  await page.locator('h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  return { page, errors };
}

describe('the console in Chromium', () => {
  it('banner names the console and its first owner', () => {
    expect(svc.output()).toContain(`Console    ${svc.baseUrl}/console`);
    expect(svc.output()).toContain(`sign in as ${OWNER}`);
  });

  it('loads every page with data, without console errors, axe-clean in light and dark, readable at 375 px', async () => {
    const pages: [string, string][] = [
      ['overview', '/'],
      ['emails', '/emails'],
      ['message', `/emails/${messageId}`],
      ['suppressions', '/suppressions'],
      ['domains', '/domains'],
      ['webhooks', '/webhooks'],
      ['keys', '/keys'],
      ['contacts', '/contacts'],
      ['bulk', '/bulk'],
      ['templates', '/templates'],
      ['team', '/team'],
      ['audit', '/audit'],
      ['operator', '/operator'],
    ];
    // the four looks at once, each in its own context (a page waits for the network to go quiet:
    // one after another, most of the time was those waits)
    const looks = (['light', 'dark'] as const).flatMap((scheme) =>
      [1280, 375].map((width) => ({ scheme, width })),
    );
    const problems = await Promise.all(
      looks.map(async ({ scheme, width }) => {
        const found: string[] = [];
        const context = await contextLike(browser, signedIn, scheme, width);
        for (const [name, pathname] of pages) {
          const { page, errors } = await openPage(context, pathname);
          const where = `${name} (${scheme}, ${width} px)`;
          if (await page.locator('[role=alert]').count())
            found.push(
              `${where}: an error is shown: ${await page.locator('[role=alert]').first().textContent()}`,
            );
          if (width === 1280) for (const v of await seriousViolations(page)) found.push(`${where}: ${v}`);
          const overflow = await horizontalOverflow(page);
          if (overflow) found.push(`${where}: ${overflow}`);
          for (const e of errors) found.push(`${where}: ${e}`);
          await screenshot(page, `${name}-${scheme}-${width}`);
          await page.close();
        }
        await context.close();
        return found;
      }),
    );
    expect(problems.flat()).toEqual([]);
  });
});

describe('the main flows', () => {
  it('creates an API key whose secret is shown once and works with curl', async () => {
    const { page, errors } = await openPage(signedIn, '/keys');
    await page.getByLabel('Name').fill('from the console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/msk_\w+_\w+/);
    const key = /msk_\w+_\w+/.exec(secret)![0];
    const res = await fetch(`${svc.baseUrl}/v1/quota`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    await page.reload();
    await page.getByRole('cell', { name: 'from the console' }).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('finds a message by its metadata and opens its timeline', async () => {
    const { page, errors } = await openPage(signedIn, '/emails');
    await page.getByLabel('Metadata key=value').fill('orderId=A-1001');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/metadata=orderId/);
    const link = page.getByRole('link', { name: new RegExp(messageId) });
    await link.first().waitFor();
    await expect.poll(() => page.getByRole('link', { name: /msg_/ }).count()).toBe(1);
    await link.first().click();
    await page.waitForURL(`${svc.baseUrl}/console/emails/${messageId}`);
    await page.getByText('A-1001').waitFor();
    await page.locator('ol li').first().waitFor();
    await screenshot(page, 'flow-message-timeline-light-1280');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('suppresses an address and lifts the suppression', async () => {
    const { page, errors } = await openPage(signedIn, '/suppressions');
    await page.locator('#supp-email').fill('flow-suppress@example.com');
    await page.getByRole('button', { name: 'Add suppression' }).click();
    await page.getByRole('cell', { name: 'flow-suppress@example.com' }).first().waitFor();
    const listed = await api('/v1/suppressions/list', {});
    expect(JSON.stringify(listed)).toContain('flow-suppress@example.com');
    await page.getByRole('button', { name: 'Remove flow-suppress@example.com' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'flow-suppress@example.com' }).count()).toBe(0);
    expect(JSON.stringify(await api('/v1/suppressions/list', {}))).not.toContain('flow-suppress@example.com');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('adds a webhook endpoint and sees its test delivery', async () => {
    const { page, errors } = await openPage(signedIn, '/webhooks');
    await page.getByLabel('URL').fill(`${svc.baseUrl}/dev/inbox/webhooks/catch`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect((await page.getByTestId('new-secret').textContent()) ?? '').toContain('whsec_');
    await page.getByRole('button', { name: 'Send test' }).first().click();
    await page.getByRole('button', { name: 'Show deliveries' }).first().click();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh deliveries' }).click();
          await page.waitForLoadState('networkidle');
          return page.getByRole('cell', { name: '200', exact: true }).count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    await screenshot(page, 'flow-webhook-delivered-light-1280');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('adds a domain, shows its records, and verifies it against the test DNS server', async () => {
    const { page, errors } = await openPage(signedIn, '/domains');
    await page.locator('#dom-name').fill('console-flow.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page
      .getByText(/mailsvc-\d{6}\._domainkey/)
      .first()
      .waitFor();
    const listed = (await api('/v1/domains/list', {})) as { domains: { domainId: string; domain: string }[] };
    const domainId = listed.domains.find((d) => d.domain === 'console-flow.example')!.domainId;
    const got = (await api('/v1/domains/get', { domainId })) as {
      domain: {
        records: { type: string; host: string; value: string; priority?: number | null; required: boolean }[];
      };
    };
    for (const r of got.domain.records.filter((x) => x.required)) {
      if (r.type === 'MX') dns.set(r.host, 'MX', { exchange: r.value, priority: r.priority ?? 10 });
      else dns.set(r.host, r.type as 'TXT', r.type === 'TXT' ? [r.value] : r.value);
    }
    await page.getByRole('button', { name: 'Verify now' }).first().click();
    await expect
      .poll(async () => JSON.stringify(await api('/v1/domains/get', { domainId })), { timeout: 30_000 })
      .toContain('"status":"verified"');
    // The page shows it: the domain's badge, and each required record's state.
    await page.locator('.badge-verified').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'flow-domain-verified-light-1280');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('contacts and bulk sends', () => {
  it('imports 1,000 contacts from a CSV with its progress, then dry-runs and sends a bulk send with live progress', async () => {
    const { page, errors } = await openPage(signedIn, '/contacts');
    const rows = Array.from({ length: 1000 }, (_, i) => `import-${i}@example.com,Person ${i}`);
    const csv = ['email,name', ...rows, 'not-an-address,Bad Row'].join('\n');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.locator('#import-group').fill('imported');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('1000 of 1001 imported, 1 refused').waitFor({ timeout: 120_000 });
    expect(await page.locator('#import-progress').evaluate((p) => (p as HTMLProgressElement).value)).toBe(
      1001,
    );
    await screenshot(page, 'flow-import-done-light-1280');
    const { page: bulk, errors: bulkErrors } = await openPage(signedIn, '/bulk');
    await bulk.getByLabel('Group').selectOption('imported');
    await bulk.getByRole('button', { name: 'Dry run' }).click();
    await bulk.getByText(/Would be sent to 1000 contacts/).waitFor({ timeout: 60_000 });
    await bulk.getByRole('button', { name: 'Send', exact: true }).click();
    await bulk.getByTestId('bulk-job-id').waitFor();
    await bulk.getByText(/^1000 of 1000 messages done/).waitFor({ timeout: 180_000 });
    await screenshot(bulk, 'flow-bulk-done-light-1280');
    // The one refused row: the API refused its batch (400), the page sent the rest again.
    const refusedBatch = /status of 400 .*\/v1\/contacts\/upsert-many\)$/;
    expect(errors.filter((e) => refusedBatch.test(e))).toHaveLength(1);
    expect([...errors.filter((e) => !refusedBatch.test(e)), ...bulkErrors]).toEqual([]);
    await page.close();
    await bulk.close();
  });
});

describe('templates', () => {
  it('previews a template with the project’s brand and sends a test of it to the member', async () => {
    const { page, errors } = await openPage(signedIn, '/templates');
    await page.getByLabel('Template').selectOption('welcome');
    await page.frameLocator('iframe.preview-frame').locator('body').waitFor();
    expect(await page.frameLocator('iframe.preview-frame').locator('body').textContent()).toContain(
      'Demo App',
    );
    await page.getByRole('button', { name: 'Send a test to me' }).click();
    await page.getByText(`Sent to ${OWNER}`).waitFor();
    await expect
      .poll(
        async () =>
          (await fetch(`${svc.baseUrl}/dev/inbox/api/messages/latest?to=${OWNER}&template=welcome`)).status,
        {
          timeout: 30_000,
        },
      )
      .toBe(200);
    await screenshot(page, 'flow-template-sent-light-1280');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the operator area', () => {
  it('opens with the admin token held in memory and lists the tenants and plans', async () => {
    const { page, errors } = await openPage(signedIn, '/operator');
    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    await page.getByLabel('Admin token').fill(token);
    await page.getByRole('button', { name: 'Open operator area' }).click();
    await page.getByRole('cell', { name: 'Demo', exact: true }).first().waitFor();
    await page.getByRole('cell', { name: 'demo', exact: true }).first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'operator-open-light-1280');
    expect(
      await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })),
    ).not.toContain(token);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('two-factor sign-in', () => {
  it('sets up an authenticator app, then asks for its code after the mailed one', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = collectErrors(page);
    await signInThroughPage(page, svc.baseUrl, OWNER);
    await page.goto(`${svc.baseUrl}/console/team`);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = decodeBase32IgnorePadding((await page.getByTestId('totp-secret').textContent()) ?? '');
    await page.getByLabel('Authenticator code').fill(totpCodeAt(secret, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Two-factor sign-in is on').first().waitFor();
    await screenshot(page, 'flow-two-factor-on-light-1280');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${svc.baseUrl}/console/sign-in`);
    // again: the mailed code, then the app's
    await fetch(`${svc.baseUrl}/dev/inbox/api/messages?to=${OWNER}`, { method: 'DELETE' });
    await page.getByLabel('Email address').fill(OWNER);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('6-digit code').fill(await latestCode(svc.baseUrl, OWNER));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code').waitFor();
    // the next 30-second step's code (the one it was turned on with is spent; one step of clock
    // difference is allowed either way)
    await page.getByLabel('Authenticator code').fill(totpCodeAt(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${svc.baseUrl}/console/`);
    // the one 400 the page meets: the sign-in that named no authenticator code yet
    expect(errors.filter((e) => !/status of 400 .*sign-in\/verify\)$/.test(e))).toEqual([]);
    await context.close();
  });
});

describe('the page’s defences', () => {
  it('runs no inline script injected into a console page (the CSP is enforced)', async () => {
    const page = await signedIn.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.route('**/console/team', async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace('<body>', '<body><script>window.injected = true</script>');
      await route.fulfill({ response, body });
    });
    await page.goto(`${svc.baseUrl}/console/team`);
    await page.locator('h1').first().waitFor();
    expect(await page.evaluate(() => (globalThis as { injected?: boolean }).injected)).toBeUndefined();
    expect(violations.length).toBeGreaterThan(0);
    await page.close();
  });
});
