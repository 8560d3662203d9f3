// Bulk messages through the real worker and an in-process SMTP server: per-contact placeholders
// filled at render time and escaped, and (on PostgreSQL) a login code sent while 100,000 bulk
// messages wait reaching the sink on the worker's next pick-up.

import {
  backend,
  createHarness,
  type Harness,
  postJson,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { type SmtpSink, startSmtpSink } from '@mailsvc/testkit/smtp-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpTransport } from '../src/delivery/transports/smtp.js';
import { DeliveryWorker } from '../src/delivery/worker.js';
import { seedContacts, seedManyContacts } from './bulk-helpers.js';

let h: Harness;
let s: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let transport: ReturnType<typeof smtpTransport>;
const MINUTE = 60_000;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 200_000 });
  sink = await startSmtpSink();
  transport = smtpTransport({ url: sink.url, poolSize: 2 });
  worker = new DeliveryWorker(h.runtime.deps, transport, {
    concurrency: 8,
    leaseMs: 5 * MINUTE,
    pollMs: 60 * MINUTE,
  });
});
afterAll(async () => {
  await worker.stop();
  await transport.close();
  await sink.close();
  await h.close();
});

const post = (url: string, body: unknown) => postJson(h, s.apiKey, url, body);

describe('bulk delivery', () => {
  it('fills {{contact.*}} placeholders per contact at render time, escaped, missing values empty', async () => {
    await seedContacts(
      h,
      s.tenantId,
      [
        {
          email: 'ada@example.com',
          name: 'Ada <b>Lovelace</b>',
          customFields: { company: 'Acme & Co', seats: 3 },
        },
        { email: 'bob@example.com', name: null, customFields: {} },
        { email: 'cyd@example.com', name: '{{projectName}} \u202eCyd', customFields: {} },
      ],
      'readers',
    );
    const res = await post('/v1/contacts/send', {
      projectId: s.projectId,
      environmentId: s.environmentId,
      templateId: 'reminder',
      templateData: {
        subject: 'For {{contact.name}} at {{ contact.customFields.company }}',
        intro:
          'Hi {{contact.name}} ({{contact.email}}): {{contact.customFields.seats}} seats, {{contact.customFields.plan}}.',
        actionButton: {
          label: 'Open {{contact.name}}',
          url: 'https://app.example.com/r?from=mail',
        },
      },
      groupSlug: 'readers',
    });
    expect(res.statusCode, res.body).toBe(200);
    // The contact changes after the send: its current values are what render.
    await h.runtime.deps.db
      .updateTable('contacts')
      .set({ name: 'Ada\r\nBcc: x@evil.test' })
      .where('email', '=', 'ada@example.com')
      .execute();
    await worker.drain();

    const ada = sink.received.find((r) => r.rcptTo.includes('ada@example.com'))!.parsed;
    // line breaks in a value never reach a header: they become spaces
    expect(ada.subject).toBe('For Ada Bcc: x@evil.test at Acme & Co');
    expect(ada.headers.has('bcc')).toBe(false);
    expect(ada.text).toContain('Hi Ada Bcc: x@evil.test (ada@example.com): 3 seats, .');
    expect(ada.html).toContain('Acme &amp; Co');
    expect(ada.html).not.toContain('<b>');
    expect(ada.html).toContain('Open Ada Bcc: x@evil.test');
    const bob = sink.received.find((r) => r.rcptTo.includes('bob@example.com'))!.parsed;
    expect(bob.subject).toBe('For at');
    expect(bob.text).toContain('Hi  (bob@example.com):  seats, .');
    // a contact's text is never read as the renderer's own placeholder; bidi controls are dropped
    const cyd = sink.received.find((r) => r.rcptTo.includes('cyd@example.com'))!.parsed;
    expect(cyd.subject).toBe('For { {projectName}} Cyd at');
  });

  it('writes a custom field shaped like an RFC 2047 encoded word into the Subject as text, never decoded into a header or a bidi control', async () => {
    await seedContacts(
      h,
      s.tenantId,
      [
        { email: 'ew-1@example.com', customFields: { f: '=?utf-8?Q?x=0D=0AX-Injected-SS:_1?=' } },
        { email: 'ew-2@example.com', customFields: { f: '=?utf-8?Q?=E2=80=AEevil?= ünïcode' } },
      ],
      'encoded-words',
    );
    const res = await post('/v1/contacts/send', {
      projectId: s.projectId,
      environmentId: s.environmentId,
      templateId: 'reminder',
      templateData: { subject: 'About {{contact.customFields.f}}' },
      groupSlug: 'encoded-words',
    });
    expect(res.statusCode, res.body).toBe(200);
    await worker.drain();
    const one = sink.received.find((r) => r.rcptTo.includes('ew-1@example.com'))!;
    expect(one.parsed.subject).toBe('About =?utf-8?Q?x=0D=0AX-Injected-SS:_1?=');
    expect(one.parsed.headers.has('x-injected-ss')).toBe(false);
    expect(one.raw.toString('latin1')).not.toMatch(/^X-Injected-SS:/im);
    const two = sink.received.find((r) => r.rcptTo.includes('ew-2@example.com'))!;
    expect(two.parsed.subject).toBe('About =?utf-8?Q?=E2=80=AEevil?= ünïcode');
    expect(two.parsed.subject).not.toContain('\u202e');
  });

  // PostgreSQL only (CI's PostgreSQL pass): it takes 10–30 s to queue, and its subject is the
  // production store under a backlog.
  it.runIf(backend === 'postgres')(
    'a login code sent while 100,000 bulk messages wait reaches the sink on the next pick-up',
    async () => {
      await seedManyContacts(h, s.tenantId, 100_000, 'crowd', 'crowd');
      const started = Date.now();
      const res = await post('/v1/contacts/send', {
        projectId: s.projectId,
        environmentId: s.environmentId,
        templateId: 'mention',
        templateData: {},
        groupSlug: 'crowd',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().queued).toBe(100_000);
      const queuedMs = Date.now() - started;

      const login = await post('/v1/send', {
        templateId: 'login-code',
        to: 'urgent@example.com',
        data: { code: '424242' },
      });
      expect(login.statusCode).toBe(200);
      const before = sink.received.length;
      await worker.runOnce();
      const delivered = sink.received.slice(before);
      // One pick-up of 8: the login code goes first, bulk messages fill the rest of the batch.
      expect(delivered.some((r) => r.rcptTo.includes('urgent@example.com'))).toBe(true);
      expect(
        delivered.filter((r) => r.rcptTo.some((to) => to.startsWith('crowd-'))).length,
      ).toBeLessThanOrEqual(7);
      const row = await h.runtime.deps.db
        .selectFrom('messages')
        .select('status')
        .where('id', '=', login.json().messageId)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('sent');
      console.info(
        `100,000 bulk messages queued in ${queuedMs} ms; login code delivered on the first pick-up`,
      );
    },
    180_000,
  );
});
