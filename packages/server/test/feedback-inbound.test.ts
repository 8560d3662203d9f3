// Bounces and complaints over real SMTP: a message is delivered to an in-process relay that
// answers 250, then a DSN or an ARF report for it is mailed to `mailsvc inbound`, which reads it
// and changes the message and its recipient (DESIGN.md §5).
import net from 'node:net';
import {
  bearer,
  createHarness,
  type Harness,
  recipientRow,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import type { Received, SmtpSink } from '@mailsvc/testkit/smtp-sink';
import type { Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMessageFeedback } from '../src/db/repositories/feedback.js';
import { claimMessages, recordAttempt, recordAttempts } from '../src/db/repositories/queue.js';
import type { DeliveryWorker } from '../src/delivery/worker.js';
import { OUTCOME_POLICY } from '../src/domain/outcome-policy.js';
import { newId } from '../src/ids.js';
import { MAX_REFUSED_RECIPIENTS, type RunningInbound } from '../src/inbound/server.js';
import { startInboundRig } from './inbound-rig.js';

let h: Harness;
let s: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let rig: Awaited<ReturnType<typeof startInboundRig>>;
let inbound: RunningInbound;
let mailer: Transporter;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  rig = await startInboundRig(h);
  ({ sink, worker, inbound, mailer } = rig);
});
afterAll(async () => {
  await rig.close();
  await h.close();
});

let counter = 0;
const address = (tag: string) => `${tag}-${++counter}@example.net`;

async function send(templateId: string, to: string, data: Record<string, unknown>) {
  return h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ templateId, to, data }),
  });
}

/** Sends a login code and delivers it to the relay (250); returns the id and what the relay got. */
async function delivered(to: string): Promise<{ id: string; received: Received }> {
  const res = await send('login-code', to, { code: '482913' });
  expect(res.statusCode, res.body).toBe(200);
  await worker.drain();
  const received = sink.received.find((r) => r.rcptTo.includes(to));
  expect(received).toBeDefined();
  return { id: res.json().messageId, received: received! };
}

const headerBlock = (raw: Buffer) => raw.toString('utf8').split(/\r?\n\r?\n/)[0]!;

function dsn(original: Received, block: string): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${original.mailFrom}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="R"',
    '',
    '--R',
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    '',
    '--R',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    block,
    '',
    '--R',
    'Content-Type: text/rfc822-headers',
    '',
    headerBlock(original.raw),
    '',
    '--R--',
    '',
  ].join('\r\n');
}

function arf(original: Received, feedbackType: string): string {
  return [
    'From: FBL <fbl@isp.example.org>',
    'To: fbl@bounces.example.com',
    'Subject: Complaint',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
    '',
    '--F',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--F',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${feedbackType}`,
    'User-Agent: ExampleFBL/1.0',
    'Version: 1',
    'Original-Rcpt-To: xxxxxx@example.net',
    '',
    '--F',
    'Content-Type: message/rfc822',
    '',
    original.raw.toString('utf8'),
    '--F--',
    '',
  ].join('\r\n');
}

/** An ARF abuse report (from the null sender) whose original is these headers only. */
function complaint(originalHeaders: string): string {
  return [
    'From: FBL <fbl@isp.example.org>',
    'To: fbl@mailsvc.test',
    'Subject: Complaint',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
    '',
    '--F',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'Version: 1',
    '',
    '--F',
    'Content-Type: text/rfc822-headers',
    '',
    originalHeaders,
    '',
    '--F--',
    '',
  ].join('\r\n');
}

const mail = (to: string, raw: string) => mailer.sendMail({ envelope: { from: '', to: [to] }, raw });

const status = async (id: string) =>
  (
    await h.runtime.deps.db
      .selectFrom('messages')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).status;

async function messageOf(id: string) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/messages/get',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ messageId: id }),
  });
  return res.json().message as { status: string; error?: { code: string; message: string } };
}

async function timeline(id: string) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/messages/get',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ messageId: id }),
  });
  return res.json().events as { type: string; enhancedCode?: string; response?: string }[];
}

describe('mailsvc inbound', () => {
  it('reads a DSN for a delivered message: bounced, one hard bounce, a 24 h cooldown, and the next send refused with 403 recipient_suppressed', async () => {
    const to = address('gone');
    const { id, received } = await delivered(to);
    expect(await status(id)).toBe('sent');
    await mail(
      received.mailFrom,
      dsn(
        received,
        `Final-Recipient: rfc822; ${to}\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 <${to}>: Recipient address rejected: User unknown`,
      ),
    );
    expect(await status(id)).toBe('bounced');
    const row = await recipientRow(h, s.environmentId, to);
    expect(row?.hard_bounce_count).toBe(1);
    expect(row?.cooldown_until?.getTime()).toBe(h.clock.now().getTime() + 24 * 3_600_000);
    const bounced = (await timeline(id)).find((e) => e.type === 'bounced');
    expect(bounced).toMatchObject({ enhancedCode: '5.1.1' });
    // The code a refusal at delivery gives too: one list of message error codes.
    expect((await messageOf(id)).error).toMatchObject({ code: 'hard_bounce' });
    expect(bounced?.response).toContain('User unknown');
    const evidence = await h.runtime.deps.db
      .selectFrom('feedback_reports')
      .select(['source', 'report_type'])
      .where('message_id', '=', id)
      .execute();
    expect(evidence).toEqual([{ source: 'inbound', report_type: 'dsn' }]);
    const next = await send('login-code', to, { code: '111111' });
    expect(next.statusCode).toBe(403);
    expect(next.json().error.code).toBe('recipient_suppressed');
  });

  it('reads an ARF abuse report sent to a plain feedback address: complained, and every template refused with 403 recipient_complained', async () => {
    const to = address('angry');
    const { id, received } = await delivered(to);
    await mail('fbl@mailsvc.test', arf(received, 'abuse'));
    expect(await status(id)).toBe('complained');
    expect((await recipientRow(h, s.environmentId, to))?.complaint_count).toBe(1);
    for (const [templateId, data] of [
      ['login-code', { code: '123456' }],
      ['welcome', {}],
    ] as const) {
      const res = await send(templateId, to, data);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('recipient_complained');
    }
  });

  it('reads an ARF abuse report whose original is headers only (RFC 6590 redaction) by its signed Message-ID', async () => {
    const to = address('redacted');
    const { id, received } = await delivered(to);
    const messageId = /^Message-ID: (<[^>]+>)/im.exec(headerBlock(received.raw))![1]!;
    expect(messageId).toMatch(new RegExp(`^<${id}\\.[0-9a-f]{16}@`));
    await mail(
      'fbl@mailsvc.test',
      complaint(`To: xxxxxx@example.net\r\nSubject: Your code\r\nMessage-ID: ${messageId}`),
    );
    expect(await status(id)).toBe('complained');
  });

  it('reads an ARF abuse report whose original keeps only our Return-Path (signed VERP)', async () => {
    const to = address('return-path');
    const { id, received } = await delivered(to);
    await mail('fbl@mailsvc.test', complaint(`Return-Path: <${received.mailFrom}>\r\nSubject: Your code`));
    expect(await status(id)).toBe('complained');
  });

  it('changes nothing for a complaint naming a message by an id without a valid tag: X-Mailsvc-Message-ID, a bare Message-ID, another message’s tag', async () => {
    const victim = await delivered(address('victim'));
    const attacker = await delivered(address('attacker'));
    const attackerTag = /^Message-ID: <msg_[0-9A-Z]{26}\.([0-9a-f]{16})@/im.exec(
      headerBlock(attacker.received.raw),
    )![1]!;
    for (const forged of [
      `X-Mailsvc-Message-ID: ${victim.id}`,
      `Message-ID: <${victim.id}@mailsvc.test>`,
      `Message-ID: <${victim.id}.${attackerTag}@mailsvc.test>`,
      `Message-ID: <${victim.id}.0000000000000000@mailsvc.test>`,
      `Return-Path: <bounces+${victim.id}.${attackerTag}@mailsvc.test>`,
    ]) {
      await mail('fbl@mailsvc.test', complaint(forged));
      expect(await status(victim.id), forged).toBe('sent');
    }
    expect(await recipientRow(h, s.environmentId, victim.received.rcptTo[0]!)).toBeUndefined();
    const next = await send('login-code', victim.received.rcptTo[0]!, { code: '222222' });
    expect(next.statusCode, next.body).toBe(200);
  });

  it('ignores a not-spam feedback report', async () => {
    const to = address('fine');
    const { id, received } = await delivered(to);
    await mail('fbl@mailsvc.test', arf(received, 'not-spam'));
    expect(await status(id)).toBe('sent');
    expect(await recipientRow(h, s.environmentId, to)).toBeUndefined();
  });

  it('refuses mail to a VERP address whose tag does not verify, and changes nothing', async () => {
    const to = address('stranger');
    const { id, received } = await delivered(to);
    const forged = received.mailFrom.replace(
      /\.([0-9a-f]{16})@/,
      (_, tag: string) => `.${tag.replace(/^./, (c) => (c === '0' ? '1' : '0'))}@`,
    );
    expect(forged).not.toBe(received.mailFrom);
    await expect(
      mail(forged, dsn(received, `Final-Recipient: rfc822; ${to}\r\nAction: failed\r\nStatus: 5.1.1`)),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect(await status(id)).toBe('sent');
    expect(await recipientRow(h, s.environmentId, to)).toBeUndefined();
  });

  it('fails the message on a 5.7.1 reputation refusal without touching the recipient', async () => {
    const to = address('blocked');
    const { id, received } = await delivered(to);
    await mail(
      received.mailFrom,
      dsn(
        received,
        `Final-Recipient: rfc822; ${to}\r\nAction: failed\r\nStatus: 5.7.1\r\nDiagnostic-Code: smtp; 550 5.7.1 Service unavailable; client host blocked using Spamhaus`,
      ),
    );
    expect(await status(id)).toBe('failed');
    expect((await messageOf(id)).error).toMatchObject({ code: 'rejected' });
    expect(await recipientRow(h, s.environmentId, to)).toBeUndefined();
  });

  it('treats Action: delayed as no failure and Action: delivered as delivered', async () => {
    const to = address('slow');
    const { id, received } = await delivered(to);
    await mail(
      received.mailFrom,
      dsn(received, `Final-Recipient: rfc822; ${to}\r\nAction: delayed\r\nStatus: 4.4.1`),
    );
    expect(await status(id)).toBe('sent');
    await mail(
      received.mailFrom,
      dsn(received, `Final-Recipient: rfc822; ${to}\r\nAction: delivered\r\nStatus: 2.0.0`),
    );
    expect(await status(id)).toBe('delivered');
  });

  it('ignores an out-of-office reply', async () => {
    const to = address('away');
    const { id, received } = await delivered(to);
    await mail(
      received.mailFrom,
      `From: ${to}\r\nTo: ${received.mailFrom}\r\nSubject: Out of Office: your login code\r\nAuto-Submitted: auto-replied\r\n\r\nI am away until Monday. 550 5.1.1 is not a bounce.\r\n`,
    );
    expect(await status(id)).toBe('sent');
  });

  it('ignores a DSN that did not come to a VERP address, even when its original names our message', async () => {
    const to = address('headers-only');
    const { id, received } = await delivered(to);
    await mail(
      'postmaster@mailsvc.test',
      dsn(received, `Final-Recipient: rfc822; ${to}\r\nAction: failed\r\nStatus: 5.1.1`),
    );
    expect(await status(id)).toBe('sent');
    expect(await recipientRow(h, s.environmentId, to)).toBeUndefined();
  });

  it('matches a DSN by its VERP address alone, never by the headers of the original it returns', async () => {
    const a = await delivered(address('verp-a'));
    const b = await delivered(address('verp-b'));
    // Sent to A's Return-Path, but quoting B's headers: only A may change.
    await mail(
      a.received.mailFrom,
      dsn(b.received, `Final-Recipient: rfc822; ${b.received.rcptTo[0]}\r\nAction: failed\r\nStatus: 5.1.1`),
    );
    expect(await status(b.id)).toBe('sent');
    expect(await status(a.id)).toBe('bounced');
  });

  it('refuses mail for a domain that is not a bounce domain (no open relay)', async () => {
    await expect(mail('someone@example.org', 'Subject: hi\r\n\r\nhello\r\n')).rejects.toMatchObject({
      responseCode: 550,
    });
  });

  it('reads an ISO-8859-1 out-of-office reply as an auto-reply, not an error', async () => {
    const to = address('latin1');
    const { id, received } = await delivered(to);
    await mail(
      received.mailFrom,
      `From: ${to}\r\nTo: ${received.mailFrom}\r\nSubject: Abwesenheitsnotiz\r\nAuto-Submitted: auto-replied\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nIch bin bis Montag nicht im B=FCro.\r\n`,
    );
    expect(await status(id)).toBe('sent');
  });

  it('refuses a message over 1 MiB with 552', async () => {
    const { received } = await delivered(address('big'));
    const body = `${'x'.repeat(998)}\r\n`.repeat(1100);
    await expect(mail(received.mailFrom, `Subject: big\r\n\r\n${body}`)).rejects.toMatchObject({
      responseCode: 552,
    });
  });
});

describe('duplicate and out-of-order reports', () => {
  const findings = [
    { kind: 'delivered', hard: false },
    { kind: 'failed', hard: true },
    { kind: 'complained', hard: false },
  ] as const;
  const permutations = <T>(xs: readonly T[]): T[][] =>
    xs.length <= 1
      ? [xs.slice()]
      : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));

  it.each([['soft, then hard'], ['hard, then soft']])(
    'count a hard bounce whether a soft failure of the same message came before or after it (%s)',
    async (order) => {
      const to = address('soft-hard');
      const { id } = await delivered(to);
      const soft = { kind: 'failed', hard: false } as const;
      const hard = { kind: 'failed', hard: true } as const;
      for (const f of order === 'soft, then hard' ? [soft, hard] : [hard, soft]) {
        await applyMessageFeedback(
          h.runtime.deps.db,
          {
            messageId: id,
            ...f,
            details: { source: 'intake' },
            evidence: null,
            now: h.clock.now(),
          },
          OUTCOME_POLICY,
        );
      }
      expect(await status(id)).toBe('bounced');
      expect((await recipientRow(h, s.environmentId, to))?.hard_bounce_count).toBe(1);
    },
  );

  it('count one hard bounce when a report bounced the message while the worker was recording its own bounce', async () => {
    const to = address('double-bounce');
    const res = await send('login-code', to, { code: '482913' });
    const id = res.json().messageId as string;
    h.clock.advance(1000);
    const now = h.clock.now();
    await claimMessages(h.runtime.deps.db, {
      now,
      limit: 1,
      lockedUntil: new Date(now.getTime() + 60_000),
      claimToken: 'double-token',
    });
    await applyMessageFeedback(
      h.runtime.deps.db,
      {
        messageId: id,
        kind: 'failed',
        hard: true,
        details: { source: 'intake' },
        evidence: null,
        now,
      },
      OUTCOME_POLICY,
    );
    await recordAttempt(
      h.runtime.deps.db,
      {
        messageId: id,
        claimToken: 'double-token',
        status: 'bounced',
        isAttempt: true,
        nextAttemptAt: null,
        error: { code: 'hard_bounce', message: '550 5.1.1' },
        event: { id: newId('evt', now.getTime()), details: { smtpCode: 550 } },
        bounce: true,
        now,
      },
      OUTCOME_POLICY,
    );
    expect((await recipientRow(h, s.environmentId, to))?.hard_bounce_count).toBe(1);
    expect((await timeline(id)).filter((e) => e.type === 'bounced')).toHaveLength(1);
  });

  it('keep a report that arrived while the attempt was being recorded: the worker’s later "sent" does not undo "delivered"', async () => {
    const to = address('race');
    const res = await send('login-code', to, { code: '482913' });
    const id = res.json().messageId as string;
    h.clock.advance(1000);
    const now = h.clock.now();
    const [claimed] = await claimMessages(h.runtime.deps.db, {
      now,
      limit: 1,
      lockedUntil: new Date(now.getTime() + 60_000),
      claimToken: 'race-token',
    });
    expect(claimed?.id).toBe(id);
    await applyMessageFeedback(
      h.runtime.deps.db,
      {
        messageId: id,
        kind: 'delivered',
        hard: false,
        details: { source: 'intake' },
        evidence: null,
        now,
      },
      OUTCOME_POLICY,
    );
    const [recorded] = await recordAttempts(
      h.runtime.deps.db,
      [
        {
          messageId: id,
          claimToken: 'race-token',
          status: 'sent',
          isAttempt: true,
          nextAttemptAt: null,
          error: null,
          event: { id: newId('evt', now.getTime()), details: { smtpCode: 250 } },
          bounce: false,
          now,
        },
      ],
      OUTCOME_POLICY,
    );
    expect(recorded).toBe(true);
    const row = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['status', 'claim_token', 'data', 'attempts'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'delivered', claim_token: null, data: null, attempts: 1 });
    expect((await timeline(id)).map((e) => e.type)).toEqual(['accepted', 'delivered']);
  });

  it.each(permutations([0, 1, 2]).map((p) => [p.join(',')]))(
    'end in the same state whatever the order (%s), each sent twice',
    async (order) => {
      const to = address('perm');
      const { id } = await delivered(to);
      for (const i of `${order},${order}`.split(',').map(Number)) {
        const f = findings[i]!;
        await applyMessageFeedback(
          h.runtime.deps.db,
          {
            messageId: id,
            kind: f.kind,
            hard: f.hard,
            details: { source: 'intake' },
            evidence: null,
            now: h.clock.now(),
          },
          OUTCOME_POLICY,
        );
      }
      expect(await status(id)).toBe('complained');
      const row = await recipientRow(h, s.environmentId, to);
      expect([row?.hard_bounce_count, row?.complaint_count]).toEqual([1, 1]);
      const types = (await timeline(id))
        .map((e) => e.type)
        .filter((t) => ['delivered', 'bounced', 'complained'].includes(t));
      expect(types.sort()).toEqual(['bounced', 'complained', 'delivered']);
    },
  );
});

/**
 * An SMTP session over a raw socket: greeting, EHLO, MAIL FROM:<>, then every RCPT in one write
 * (pipelined). Resolves with the reply code of each reply line after MAIL FROM, and whether the
 * server closed the connection.
 */
function pipelinedRcpts(rcpts: string[]): Promise<{ codes: number[]; isClosedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(inbound.port, '127.0.0.1');
    let buffer = '';
    let step = 0;
    const codes: number[] = [];
    let isDone = false;
    const finish = (isClosedByServer: boolean) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ codes, isClosedByServer });
    };
    const timer = setTimeout(() => finish(false), 50_000);
    socket.on('error', (err) => (isDone ? undefined : reject(err)));
    socket.on('close', () => finish(true));
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let at = buffer.indexOf('\r\n'); at >= 0; at = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (line[3] === '-') continue;
        const code = Number(line.slice(0, 3));
        if (step === 0) socket.write('EHLO attacker.example\r\n');
        else if (step === 1) socket.write('MAIL FROM:<>\r\n');
        else if (step === 2) socket.write(rcpts.map((r) => `RCPT TO:<${r}>\r\n`).join(''));
        else {
          codes.push(code);
          if (codes.length === rcpts.length) {
            socket.write('QUIT\r\n');
            finish(false);
          }
        }
        step++;
      }
    });
  });
}

/**
 * The slowest /healthz answer over a real socket while `session` runs (probes one after another,
 * from its start): a socket, not inject, because what starves is the event loop's poll for I/O.
 */
async function healthzLatencyDuring<T>(session: Promise<T>): Promise<{ maxMs: number; result: T }> {
  const address = h.app.server.address();
  if (!address || typeof address !== 'object') await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as net.AddressInfo;
  let isRunning = true;
  let maxMs = 0;
  const probes = (async () => {
    do {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      maxMs = Math.max(maxMs, performance.now() - started);
      await new Promise((r) => setTimeout(r, 5));
    } while (isRunning);
  })();
  const result = await session.finally(() => {
    isRunning = false;
  });
  await probes;
  return { maxMs, result };
}

describe('the inbound port, open to anyone', () => {
  it(`closes a session with 421 after ${MAX_REFUSED_RECIPIENTS} refused recipients, however many are pipelined`, async () => {
    const rcpts = Array.from({ length: 10_000 }, (_, i) => `x@bounces.d${i}.example`);
    const { codes, isClosedByServer } = await pipelinedRcpts(rcpts);
    expect(codes.slice(0, MAX_REFUSED_RECIPIENTS)).toEqual(Array(MAX_REFUSED_RECIPIENTS).fill(550));
    expect(codes.slice(MAX_REFUSED_RECIPIENTS)).toEqual([421]);
    expect(isClosedByServer).toBe(true);
  });

  it('counts recipients refused as one too many (452) too: 20 accepted, then 10,000 more end in 421', async () => {
    const rcpts = Array.from({ length: 10_020 }, (_, i) => `fbl-${i}@mailsvc.test`);
    const { codes, isClosedByServer } = await pipelinedRcpts(rcpts);
    expect(codes).toEqual([...Array(20).fill(250), ...Array(MAX_REFUSED_RECIPIENTS).fill(452), 421]);
    expect(isClosedByServer).toBe(true);
  });

  it('counts forged VERP addresses among the refused recipients too', async () => {
    const forged = Array.from(
      { length: 100 },
      (_, i) =>
        `bounces+msg_01M81C1XJB15ES7FNH56DTTE${String(i).padStart(2, '0')}.0000000000000000@mailsvc.test`,
    );
    const { codes } = await pipelinedRcpts(forged);
    expect(codes).toEqual([...Array(MAX_REFUSED_RECIPIENTS).fill(550), 421]);
  });

  it('keeps /healthz as responsive during a session of 10,000 refused RCPTs as during a benign one (ratio ≤ 5, floor 50 ms)', async () => {
    const { received } = await delivered(address('benign'));
    // Benign: 20 recipients, every one accepted (our signed VERP address), then QUIT.
    const benign = await healthzLatencyDuring(pipelinedRcpts(Array(20).fill(received.mailFrom)));
    expect(benign.result.codes).toEqual(Array(20).fill(250));
    const hostile = await healthzLatencyDuring(
      pipelinedRcpts(Array.from({ length: 10_000 }, (_, i) => `x@bounces.h${i}.example`)),
    );
    expect(hostile.result.isClosedByServer).toBe(true);
    console.log(
      `/healthz slowest answer: ${benign.maxMs.toFixed(1)} ms benign, ${hostile.maxMs.toFixed(1)} ms hostile`,
    );
    expect(hostile.maxMs).toBeLessThanOrEqual(Math.max(5 * benign.maxMs, 50));
  });
});
