// The dev inbox (like Mailpit): messages stored by the capture transport, served only by
// `mailsvc start` when no MAILSVC_SMTP_URL is set, and only to requests addressed to a loopback
// name (dev-access.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { simpleParser } from 'mailparser';
import { listCaptured, readCaptured } from '../../delivery/transports/capture.js';
import { maskEmail } from '../../domain/email.js';
import {
  type InboxMessageView,
  renderInboxListPage,
  renderInboxMessagePage,
  renderInboxNotFoundPage,
} from '../pages/dev-inbox-page.js';
import { requireLoopbackHost } from './dev-access.js';

// Scripts never run (none on the pages; the message's HTML is in an empty-sandbox frame, which
// inherits this policy). Images load so that templates look as they will in a mail client.
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);

async function viewOf(messageId: string, raw: Buffer): Promise<InboxMessageView> {
  const parsed = await simpleParser(raw, { skipTextToHtml: true });
  const to = Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(', ') : (parsed.to?.text ?? '');
  return {
    messageId,
    subject: parsed.subject ?? '',
    from: parsed.from?.text ?? '',
    to,
    date: parsed.date?.toISOString() ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : null,
    text: parsed.text ?? null,
    // As written in the message (encoded words stay encoded), unfolded to one line each.
    headers: parsed.headerLines.map((h) => {
      const line = h.line.replace(/\r?\n[ \t]+/g, ' ');
      const colon = line.indexOf(':');
      return colon < 0
        ? { name: h.key, value: line }
        : { name: line.slice(0, colon), value: line.slice(colon + 1).trim() };
    }),
    raw: raw.toString('utf8'),
  };
}

export function devInboxRoutes(app: FastifyInstance, opts: { dir: string }) {
  app.get('/dev/inbox', { onRequest: requireLoopbackHost }, async (_req, reply) =>
    html(reply, 200, renderInboxListPage(await listCaptured(opts.dir))),
  );

  app.get('/dev/inbox.json', { onRequest: requireLoopbackHost }, async (_req, reply) => {
    const messages = (await listCaptured(opts.dir)).map((e) => ({
      messageId: e.messageId,
      capturedAt: e.capturedAt,
      toMasked: maskEmail(e.to),
      templateId: e.templateId,
      subject: e.subject,
    }));
    return reply.header('cache-control', 'no-store').send({ ok: true, messages });
  });

  app.get('/dev/inbox/:id', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const raw = await readCaptured(opts.dir, id);
    if (!raw) return html(reply, 404, renderInboxNotFoundPage());
    return html(reply, 200, renderInboxMessagePage(await viewOf(id, raw)));
  });

  app.get('/dev/inbox/:id/raw', { onRequest: requireLoopbackHost }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const raw = await readCaptured(opts.dir, id);
    if (!raw) return html(reply, 404, renderInboxNotFoundPage());
    return reply
      .headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
      .header('content-disposition', `attachment; filename="${id}.eml"`)
      .type('message/rfc822')
      .send(raw);
  });
}
