// A project's brand (logo, colour, postal address), set with `mailsvc admin projects update`:
// refused with the reason when it would make mail unreadable or insecure, and shown in the mail
// that reaches the SMTP sink.
import { contrastRatio, getFixture, getTemplate } from '@mailsvc/templates';
import {
  ADMIN_TOKEN,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { type SmtpSink, startSinkWorker } from '@mailsvc/testkit/smtp-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAdminArgs } from '../src/cli/admin.js';
import type { DeliveryWorker } from '../src/delivery/worker.js';
import { brandColorProblem } from '../src/domain/admin/brand.js';

let h: Harness;
let s: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let rig: Awaited<ReturnType<typeof startSinkWorker>>;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  rig = await startSinkWorker(h.runtime.deps);
  ({ sink, worker } = rig);
});
afterAll(async () => {
  await rig.close();
  await h.close();
});

const update = (payload: Record<string, unknown>) =>
  h.request({
    method: 'POST',
    url: '/admin/v1/projects/update',
    payload: JSON.stringify({ id: s.projectId, ...payload }),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });

let counter = 0;
async function deliver(templateId: string): Promise<{ html: string; text: string }> {
  const to = `brand-${++counter}@example.com`;
  const { version } = getTemplate(templateId);
  const res = await h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ templateId, to, data: getFixture(version) }),
  });
  expect(res.statusCode, res.body).toBe(200);
  await worker.drain();
  const mail = sink.received.find((r) => r.rcptTo.includes(to));
  expect(mail, `no mail for ${to}`).toBeDefined();
  return { html: String(mail!.parsed.html), text: mail!.parsed.text ?? '' };
}

describe('brand settings', () => {
  it('refuses a brand colour that white button text would fall below 4.5:1 on, saying why', async () => {
    const res = await update({ brandColor: '#60a5fa' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toEqual([
      {
        path: '/brandColor',
        message: expect.stringMatching(/contrast of 2\.\d\d:1; it must be at least 4\.5:1/),
      },
    ]);
    expect(brandColorProblem('#2563eb')).toBeNull(); // the default blue: 5.17:1
    expect(contrastRatio('#2563eb', '#ffffff')).toBeCloseTo(5.17, 2);
    expect(brandColorProblem('red')).toBe('must be a colour written #rrggbb');
  });

  it('refuses a logo that is not https, and a postal address of more than five lines', async () => {
    const res = await update({
      logoUrl: 'http://cdn.acme.test/logo.png',
      postalAddress: 'a|b|c|d|e|f'.split('|').join('\n'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toEqual([
      '/logoUrl',
      '/postalAddress',
    ]);
    for (const logoUrl of [
      'javascript:alert(1)',
      'https:cdn.acme.test/logo.png',
      'https://cdn.acme.test/lo\u202Ego.png',
      'https://user:pw@cdn.acme.test/l.png',
      'https://cdn.acme.test/a b.png',
    ]) {
      const res = await update({ logoUrl });
      expect(res.statusCode, logoUrl).toBe(400);
      expect(res.json().error.details[0], logoUrl).toMatchObject({
        path: '/logoUrl',
        message: expect.stringMatching(/https/),
      });
    }
    // the scheme in capitals is the same URL: accepted, stored in lower case
    const upper = await update({ logoUrl: 'HTTPS://cdn.acme.test/logo.png' });
    expect(upper.statusCode, upper.body).toBe(200);
    expect(upper.json().project.logoUrl).toBe('https://cdn.acme.test/logo.png');
  });

  it('stores a valid brand, lowercases the colour, splits the address on " | ", and clears with ""', async () => {
    const res = await update({
      brandColor: '#166534',
      logoUrl: 'https://cdn.acme.test/logo.png',
      postalAddress: 'Acme Inc. | 1 Market Street | San Francisco, CA 94105',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().project).toMatchObject({
      brandColor: '#166534',
      logoUrl: 'https://cdn.acme.test/logo.png',
      postalAddress: 'Acme Inc.\n1 Market Street\nSan Francisco, CA 94105',
    });
    const cleared = await update({ brandColor: '', logoUrl: '', postalAddress: '' });
    expect(cleared.json().project).toMatchObject({ brandColor: null, logoUrl: null, postalAddress: null });
  });

  it('is set from the command line with --brand-color, --logo-url and --postal-address', () => {
    const id = s.projectId;
    const { input } = parseAdminArgs([
      'projects',
      'update',
      id,
      '--brand-color',
      '#166534',
      '--logo-url',
      'https://cdn.acme.test/logo.png',
      '--postal-address',
      'Acme Inc. | 1 Market Street',
    ]);
    expect(input).toEqual({
      id,
      brandColor: '#166534',
      logoUrl: 'https://cdn.acme.test/logo.png',
      postalAddress: 'Acme Inc. | 1 Market Street',
    });
  });
});

describe('branded mail at the sink', () => {
  it('shows the logo, the brand colour on the button, and the postal address in notification mail', async () => {
    const set = await update({
      brandColor: '#166534',
      logoUrl: 'https://cdn.acme.test/logo.png',
      postalAddress: 'Acme Inc. | 1 Market Street | San Francisco, CA 94105',
    });
    expect(set.statusCode, set.body).toBe(200);

    const note = await deliver('mention');
    expect(note.html).toContain('src="https://cdn.acme.test/logo.png"');
    expect(note.html).toMatch(/bgcolor="#166534"/);
    expect(note.html).toContain('1 Market Street');
    expect(note.text).toContain('Acme Inc.');
    expect(note.text).toContain('San Francisco, CA 94105');

    // Security mail carries the brand, not the postal address (it is not marketing or a notification).
    const login = await deliver('login-code');
    expect(login.html).toContain('src="https://cdn.acme.test/logo.png"');
    expect(login.html).not.toContain('1 Market Street');
    expect(login.text).not.toContain('1 Market Street');
  });

  it('renders the default look again once the brand is cleared', async () => {
    await update({ brandColor: '', logoUrl: '', postalAddress: '' });
    const note = await deliver('mention');
    expect(note.html).not.toContain('cdn.acme.test');
    expect(note.html).not.toContain('#166534');
    expect(note.html).not.toContain('1 Market Street');
  });
});
