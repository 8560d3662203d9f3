import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/api/app.js';
import { devInboxRoutes } from '../src/api/routes/dev-inbox.js';
import { captureTransport, inboxDir } from '../src/delivery/transports/capture.js';
import { newId } from '../src/ids.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
let app: FastifyInstance;
let dir: string;

beforeAll(async () => {
  h = await createHarness();
  dir = inboxDir(h.dataDir);
  app = await buildApp(h.runtime.deps, { extraRoutes: [(a) => devInboxRoutes(a, { dir })] });
});
afterAll(async () => {
  await app.close();
  await h.close();
});

interface Mail {
  to: string;
  subject: string;
  html: string;
  text: string;
  templateId?: string;
  headers?: Record<string, string>;
}

let clockMs = Date.parse('2026-11-22T10:15:30.123Z');

/** Builds a real MIME message and delivers it through the capture transport. */
async function capture(mail: Mail, rawOverride?: (messageId: string) => Buffer): Promise<string> {
  clockMs += 1000;
  const messageId = newId('msg', clockMs);
  const raw =
    rawOverride?.(messageId) ??
    (await new MailComposer({
      from: '"Acme App" <notifications@mailsvc.test>',
      to: mail.to,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      messageId: `<${messageId}@mailsvc.test>`,
      headers: { 'X-Mailsvc-Message-Id': messageId, ...mail.headers },
    })
      .compile()
      .build());
  const transport = captureTransport(dir, () => new Date(clockMs));
  const outcome = await transport.send({
    messageId,
    envelope: { from: `bounces+${messageId}@bounces.mailsvc.test`, to: mail.to },
    raw,
    meta: { templateId: mail.templateId ?? 'mention', subject: mail.subject },
  });
  expect(outcome.kind).toBe('sent');
  return messageId;
}

const get = (url: string) => app.inject({ method: 'GET', url });

describe('GET /dev/inbox', () => {
  it('shows an empty inbox before anything was captured', async () => {
    const res = await get('/dev/inbox');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No messages yet');
  });

  it('lists captured messages newest first with masked recipients, never the full address', async () => {
    const first = await capture({
      to: 'jane.doe@example.com',
      subject: 'Your login code',
      html: '<p>123456</p>',
      text: '123456',
      templateId: 'login-code',
    });
    const second = await capture({
      to: 'bob.smith@example.org',
      subject: 'Grüße, Zoë — 你好',
      html: '<p>hi</p>',
      text: 'hi',
    });
    const res = await get('/dev/inbox');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'/);
    expect(res.body).toContain('j***@example.com');
    expect(res.body).toContain('b***@example.org');
    expect(res.body).not.toContain('jane.doe');
    expect(res.body).not.toContain('bob.smith');
    expect(res.body).toContain('Your login code');
    expect(res.body).toContain('Grüße, Zoë — 你好');
    expect(res.body).toContain('login-code');
    expect(res.body.indexOf(`/dev/inbox/${second}`)).toBeLessThan(res.body.indexOf(`/dev/inbox/${first}`));
    expect(res.body).toContain('<meta http-equiv="refresh" content="5">');

    const json = await get('/dev/inbox.json');
    expect(json.json().messages[0]).toEqual({
      messageId: second,
      capturedAt: expect.any(String),
      toMasked: 'b***@example.org',
      templateId: 'mention',
      subject: 'Grüße, Zoë — 你好',
    });
    expect(json.body).not.toContain('bob.smith');
  });
});

describe('GET /dev/inbox/:id', () => {
  it('shows the parsed message: subject, HTML in a sandboxed frame, text, headers and source', async () => {
    const id = await capture({
      to: 'reader@example.com',
      subject: 'Héllo wörld ✓',
      html: '<!doctype html><html><body><h1 style="color:#123">Hello &amp; welcome</h1></body></html>',
      text: 'Hello & welcome\n\nSecond paragraph',
    });
    const res = await get(`/dev/inbox/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.body).toContain('<h1>Héllo wörld ✓</h1>');
    expect(res.body).toContain('<iframe sandbox="" title="HTML part of the message" srcdoc="');
    expect(res.body).toContain(
      'srcdoc="&lt;!doctype html&gt;&lt;html&gt;&lt;body&gt;&lt;h1 style=&quot;color:#123&quot;&gt;Hello &amp;amp; welcome&lt;/h1&gt;',
    );
    expect(res.body).toContain('<pre>Hello &amp; welcome\n\nSecond paragraph</pre>');
    expect(res.body).toMatch(/<th scope="row" class="nowrap">X-Mailsvc-Message-ID<\/th><td>msg_/i);
    expect(res.body).toMatch(/<th scope="row" class="nowrap">Return-Path<\/th><td>&lt;bounces\+msg_/);
    expect(res.body).toMatch(/<th scope="row" class="nowrap">Subject<\/th><td>=\?UTF-8\?/);
    expect(res.body).toContain('Content-Type: multipart/alternative');
    expect(res.body).toContain(`href="/dev/inbox/${id}/raw"`);
  });

  it('escapes a hostile message everywhere: subject, headers, HTML part', async () => {
    const evil = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const id = await capture({
      to: 'victim@example.com',
      subject: evil,
      html: `<p>hi</p><script>alert(3)</script><img src=x onerror="alert(4)">`,
      text: `text ${evil}`,
      headers: { 'X-Evil': evil },
    });
    for (const url of [`/dev/inbox/${id}`, '/dev/inbox']) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<script');
      expect(res.body).not.toContain('<img');
      expect(res.body).toContain(
        '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;',
      );
    }
    const page = (await get(`/dev/inbox/${id}`)).body;
    expect(page).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(page).toContain('<th scope="row" class="nowrap">X-Evil</th>');
  });

  it('escapes header names and values written raw, without encoded words', async () => {
    const evil = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const id = await capture({ to: 'victim@example.com', subject: evil, html: '', text: '' }, (messageId) =>
      Buffer.from(
        [
          `From: "<b>Mallory</b>" <mallory@example.com>`,
          'To: victim@example.com',
          `Subject: ${evil}`,
          `X-Evil: ${evil}`,
          `Message-ID: <${messageId}@example.com>`,
          'Content-Type: text/html; charset=utf-8',
          '',
          `<p>${evil}</p>`,
          '',
        ].join('\r\n'),
      ),
    );
    const res = await get(`/dev/inbox/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toContain('<img');
    expect(res.body).not.toContain('<b>Mallory');
    expect(res.body).toContain(
      '<th scope="row" class="nowrap">X-Evil</th><td>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</td>',
    );
    expect(res.body).toContain(
      '<h1>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</h1>',
    );
    expect(res.body).toContain('srcdoc="&lt;p&gt;&quot;&gt;&lt;img src=x');
  });

  it('downloads the raw message with the exact captured bytes', async () => {
    const id = await capture({ to: 'raw@example.com', subject: 'Ünïcode raw', html: '<b>x</b>', text: 'x' });
    const res = await get(`/dev/inbox/${id}/raw`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('message/rfc822');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${id}.eml"`);
    expect(res.rawPayload.equals(fs.readFileSync(path.join(dir, `${id}.eml`)))).toBe(true);
    expect(res.rawPayload.subarray(0, 13).toString()).toBe('Return-Path: ');
  });

  it.each([
    ['an unknown id', 'msg_00000000000000000000000000'],
    ['a malformed id', 'msg_..%2F..%2Fetc'],
    ['a path outside the inbox', '..%2F..%2Fmailsvc.lock'],
    ['an id in lower case', 'msg_0000000000000000000000000a'],
  ])('answers 404 for %s', async (_name, id) => {
    for (const url of [`/dev/inbox/${id}`, `/dev/inbox/${id}/raw`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Message not found');
    }
  });
});
