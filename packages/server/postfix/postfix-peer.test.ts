// The SMTP client (delivery/smtp/, through smtpTransport) against Postfix, Debian's package, as
// the peer: a private instance (postfix-instance.ts) that relays everything it accepts to an
// smtp-server sink in this process, where each message is read back. What the client sent is
// judged by what Postfix accepted, logged and forwarded, not by a server written for the test.
//
// Needs Postfix and root; skipped otherwise (`npm run test:postfix`; .ci/run installs Postfix and
// sets MAILSVC_REQUIRE_POSTFIX, which turns the skip into a failure).
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateDkimKeyPair, parseDkimKey, signMessage } from '../src/delivery/dkim.js';
import { buildMime } from '../src/delivery/mime.js';
import { smtpTransport } from '../src/delivery/transports/smtp.js';
import type { DeliveryOutcome, Transport } from '../src/delivery/transports/transport.js';
import { checkDkim } from '../src/dev/inbox/check-dkim.js';
import {
  type PostfixInstance,
  postfixUnavailable,
  REJECTED_RECIPIENT,
  REJECTION,
  SHORT_TIMEOUT_S,
  startPostfix,
} from './postfix-instance.js';

const unavailable = postfixUnavailable();
// .ci/run sets MAILSVC_REQUIRE_POSTFIX: there a missing Postfix is a failure, not a skip.
if (unavailable && process.env.MAILSVC_REQUIRE_POSTFIX)
  throw new Error(`The Postfix peer suite cannot run: ${unavailable}.`);
if (unavailable) console.warn(`Postfix peer suite skipped: ${unavailable}.`);

const SENDING_DOMAIN = 'mail.acme-postfix.test';
const ENVELOPE_FROM = 'bounce+postfix@bounces.mailsvc.test';
const RECIPIENT = 'ada@relay.test';

/** One message as the sink got it from Postfix. */
interface Relayed {
  raw: Buffer;
  mailFrom: string;
  mailArgs: Record<string, unknown>;
  rcptTo: string[];
  messageId: string;
}

interface Sink {
  port: number;
  readonly messages: Relayed[];
  /** Every relayed message with this Message-ID (angle brackets included). */
  byId(messageId: string): Relayed[];
  /** Waits for `count` messages with these Message-IDs (a missing one names itself). */
  waitFor(messageIds: string[], timeoutMs?: number): Promise<Relayed[]>;
  close(): Promise<void>;
}

/** The sink Postfix relays to: smtp-server offering PIPELINING, 8BITMIME and SMTPUTF8. */
async function startSink(): Promise<Sink> {
  const messages: Relayed[] = [];
  const server = new SMTPServer({
    name: 'sink.mailsvc.test',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const head = raw.subarray(0, raw.indexOf('\r\n\r\n')).toString('utf8');
        const from = session.envelope.mailFrom;
        messages.push({
          raw,
          mailFrom: from ? from.address : '',
          mailArgs: (from ? from.args : {}) as Record<string, unknown>,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          messageId: /^Message-ID:\s*(<[^>\r\n]*>)/im.exec(head)?.[1] ?? '',
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const byId = (id: string) => messages.filter((m) => m.messageId === id);
  return {
    port: (server.server.address() as AddressInfo).port,
    messages,
    byId,
    async waitFor(ids, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const missing = ids.filter((id) => byId(id).length === 0);
        if (missing.length === 0) return ids.map((id) => byId(id)[0]!);
        if (Date.now() > until)
          throw new Error(
            `${missing.length} of ${ids.length} messages never reached the sink (first: ${missing[0]}); Postfix's log:\n${postfix.log()}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let sink: Sink;
let postfix: PostfixInstance;

const dkimPair = generateDkimKeyPair(new Date());
const dkimKey = parseDkimKey(SENDING_DOMAIN, dkimPair.selector, dkimPair.privateKeyPem);
/** The selector's public key, for the dev inbox's DKIM checker (mailauth, no DNS). */
const findPublicKey = async (domain: string, selector: string) =>
  domain === SENDING_DOMAIN && selector === dkimPair.selector ? dkimPair.publicKeyPem : null;

function transportTo(port: number, opts: { poolSize?: number; query?: string } = {}): Transport {
  return smtpTransport({
    url: `smtp://127.0.0.1:${port}${opts.query ?? ''}`,
    poolSize: opts.poolSize ?? 1,
    // Postfix's certificate is self-signed.
    tls: { rejectUnauthorized: false },
    timeouts: { connectionMs: 10_000, greetingMs: 10_000, socketMs: 20_000 },
  });
}

async function withTransport<T>(transport: Transport, fn: (t: Transport) => Promise<T>): Promise<T> {
  try {
    return await fn(transport);
  } finally {
    await transport.close();
  }
}

const send = (transport: Transport, raw: Buffer, to = RECIPIENT, messageId = `msg_${randomUUID()}`) =>
  transport.send({
    messageId,
    envelope: { from: ENVELOPE_FROM, to },
    raw,
    meta: { templateId: 'postfix-peer', subject: 'postfix peer' },
  });

/** A DKIM-signed message from the project's own builder; returns it with its Message-ID header. */
function builtMessage(n: number, to = RECIPIENT): { raw: Buffer; messageId: string } {
  const id = `msg_pfx_${n}_${randomUUID().replaceAll('-', '')}`;
  const raw = signMessage(
    buildMime({
      messageId: id,
      messageIdHeader: `<${id}@${SENDING_DOMAIN}>`,
      from: { name: 'Acme Notifications', address: `notifications@${SENDING_DOMAIN}` },
      to,
      replyTo: null,
      subject: `Your code, message ${n} — Ünïcode in the subject`,
      html: `<p>Message <b>${n}</b>.</p>\n<p>.a line that starts with a dot</p>\n`,
      text: `Message ${n}.\n.a line that starts with a dot\n.\n\nGrüße`,
      date: new Date(),
      unsubscribeUrl: `https://mail.example.test/u/${n}`,
    }),
    dkimKey,
  );
  return { raw, messageId: `<${id}@${SENDING_DOMAIN}>` };
}

/** A message written by hand: CRLF line ends, headers as given, `body` as given (UTF-8). */
function rawMessage(headers: Record<string, string>, body: string): { raw: Buffer; messageId: string } {
  const messageId = `<raw.${randomUUID()}@mailsvc.test>`;
  const head = {
    From: 'sender@mailsvc.test',
    To: RECIPIENT,
    Subject: 'raw message',
    'Message-ID': messageId,
    Date: new Date().toUTCString().replace(/GMT$/, '+0000'),
    'MIME-Version': '1.0',
    'Content-Type': 'text/plain; charset=utf-8',
    ...headers,
  };
  const text = `${Object.entries(head)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${body}`;
  return { raw: Buffer.from(text, 'utf8'), messageId };
}

const bodyOf = (raw: Buffer) => raw.subarray(raw.indexOf('\r\n\r\n') + 4);

/** The header fields Postfix put above the message it was given: its Received, nothing else. */
function addedByPostfix(relayed: Relayed, sent: Buffer): string {
  expect(relayed.raw.length).toBeGreaterThan(sent.length);
  const tail = relayed.raw.subarray(relayed.raw.length - sent.length);
  expect(tail.equals(sent), 'the message after Postfix is the message sent, byte for byte').toBe(true);
  const added = relayed.raw.subarray(0, relayed.raw.length - sent.length).toString('utf8');
  expect(added).toMatch(/^Received: /);
  // One field: every further line is a continuation.
  expect(
    added
      .split('\r\n')
      .slice(1, -1)
      .every((l) => /^[ \t]/.test(l)),
    added,
  ).toBe(true);
  return added.replace(/\r\n[ \t]+/g, ' ');
}

/** smtpd's "disconnect from …" lines: one per session, with its command counts. */
function sessions(log: string, service = 'postfix/smtpd'): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes(` ${service}[`) || !line.includes(' disconnect from ')) continue;
    const counts: Record<string, string> = {};
    for (const m of line.matchAll(/ (\w+)=(\d+(?:\/\d+)?)/g)) counts[m[1]!] = m[2]!;
    found.push(counts);
  }
  return found;
}

const connects = (log: string, service = 'postfix/smtpd') =>
  log.split('\n').filter((l) => l.includes(` ${service}[`) && l.includes(' connect from ')).length;

/** What Postfix logs when a client breaks RFC 2920 or sends bare LFs; none may appear. */
const PROTOCOL_COMPLAINTS = /improper command pipelining|synchronization|bare <LF>|lost connection/;

/**
 * A hand-written SMTP session for the control test: each step's bytes are written as one chunk,
 * then its reply awaited. Returns everything the server said.
 */
async function rawSession(port: number, steps: { send: string; until: RegExp }[]): Promise<string> {
  const socket = net.connect({ host: '127.0.0.1', port });
  let said = '';
  socket.on('data', (d: Buffer) => {
    said += d.toString();
  });
  socket.on('error', () => undefined);
  const waitFor = async (re: RegExp) => {
    const until = Date.now() + 10_000;
    while (!re.test(said)) {
      if (Date.now() > until) throw new Error(`no ${re} from Postfix; it said:\n${said}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    await waitFor(/^220 /m);
    for (const step of steps) {
      socket.write(step.send);
      await waitFor(step.until);
    }
    return said;
  } finally {
    socket.destroy();
  }
}

/**
 * A TCP relay between the client and Postfix's plain listener that counts, on the wire, the
 * transactions the client began before the previous message's final reply had come back
 * (RFC 2920 §3.1's pipelining across transactions).
 */
async function startWireCounter(target: number): Promise<{
  port: number;
  readonly pipelined: number;
  readonly transactions: number;
  close(): Promise<void>;
}> {
  const state = { pipelined: 0, transactions: 0 };
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: target });
    let ends = 0;
    let finalReplies = 0;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      for (const m of text.matchAll(/\r\n\.\r\n|MAIL FROM:/g)) {
        if (m[0] !== 'MAIL FROM:') ends++;
        else {
          state.transactions++;
          if (ends > finalReplies) state.pipelined++;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      finalReplies += chunk.toString('latin1').match(/^250 2\.0\.0 Ok: queued/gm)?.length ?? 0;
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get pipelined() {
      return state.pipelined;
    },
    get transactions() {
      return state.transactions;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function expectSent(outcome: DeliveryOutcome): void {
  expect(outcome, JSON.stringify(outcome)).toMatchObject({ kind: 'sent', smtpCode: 250 });
}

describe.skipIf(unavailable !== null)('the SMTP client against Postfix as the peer', () => {
  beforeAll(async () => {
    sink = await startSink();
    postfix = await startPostfix({ relayPort: sink.port });
    console.info(`Postfix ${postfix.version} in ${postfix.dir}, relaying to the sink on ${sink.port}`);
  });

  // Every session a test opened has ended and is in the log before the next test takes its
  // mark (postlogd writes asynchronously): a late line would otherwise count for the next test.
  afterEach(async () => {
    if (!postfix) return;
    await postfix.waitForLog(
      0,
      (l) =>
        (l.match(/\/smtpd\[\d+\]: connect from /g) ?? []).length ===
        (l.match(/ disconnect from /g) ?? []).length,
      'every session ended',
    );
  });

  afterAll(async () => {
    await postfix?.stop();
    await sink?.close();
  });

  it('control: this Postfix refuses clients that pipeline outside RFC 2920 or send bare LFs, so its silence counts', async () => {
    const mark = postfix.logMark();
    // The message written with DATA, before the 354.
    const early = await rawSession(postfix.plainPort, [
      { send: 'EHLO control.test\r\n', until: /^250 /m },
      {
        send: 'MAIL FROM:<a@control.test>\r\nRCPT TO:<ada@relay.test>\r\nDATA\r\nSubject: x\r\n\r\nbody\r\n.\r\n',
        until: /^5\d\d /m,
      },
    ]);
    expect(early).toMatch(/^554 5\.5\.0 Error: SMTP protocol synchronization/m);
    const bareLf = await rawSession(postfix.plainPort, [
      { send: 'EHLO control.test\r\n', until: /^250 /m },
      { send: 'MAIL FROM:<a@control.test>\r\nRCPT TO:<ada@relay.test>\r\nDATA\r\n', until: /^354 /m },
      { send: 'Subject: x\n\nbody\r\n.\r\n', until: /^5\d\d /m },
    ]);
    expect(bareLf).toMatch(/^550 5\.5\.2 .*bare <LF> received/m);
    const log = await postfix.waitForLog(
      mark,
      (l) => sessions(l, 'postfix/plain/smtpd').length === 2,
      'the two control sessions ending',
    );
    expect(log).toMatch(/improper command pipelining after DATA/);
    expect(log).toMatch(PROTOCOL_COMPLAINTS);
    await postfix.waitForEmptyQueue();
  });

  it('STARTTLS: Postfix offers it, the client upgrades, and Postfix records the message as received with ESMTPS', async () => {
    const mark = postfix.logMark();
    const { raw, messageId } = builtMessage(1);
    await withTransport(transportTo(postfix.port), async (t) => expectSent(await send(t, raw)));
    const [relayed] = await sink.waitFor([messageId]);
    const received = addedByPostfix(relayed!, raw);
    expect(received).toMatch(/\(using TLSv1\.[23] with cipher /);
    expect(received).toMatch(/ by postfix\.relay\.test \(Postfix\) with ESMTPS id /);
    const log = await postfix.waitForLog(mark, (l) => sessions(l).length === 1, 'the session ending');
    expect(log).toMatch(/Anonymous TLS connection established from \S+\[127\.0\.0\.1\]: TLSv1\.[23] /);
    expect(sessions(log)[0]).toMatchObject({ ehlo: '2', starttls: '1', mail: '1', rcpt: '1', data: '1' });
  });

  it('pipelining: 200 DKIM-signed messages through a pool of 3 connections arrive exactly once, byte for byte, and still verify', async () => {
    const mark = postfix.logMark();
    const messages = Array.from({ length: 200 }, (_, i) => builtMessage(i));
    const outcomes = await withTransport(transportTo(postfix.port, { poolSize: 3 }), (t) =>
      Promise.all(messages.map((m) => send(t, m.raw))),
    );
    for (const o of outcomes) expectSent(o);

    const relayed = await sink.waitFor(messages.map((m) => m.messageId));
    await postfix.waitForEmptyQueue();
    for (const m of messages) expect(sink.byId(m.messageId), m.messageId).toHaveLength(1);
    for (const [i, m] of messages.entries()) addedByPostfix(relayed[i]!, m.raw);
    for (const r of relayed) {
      const dkim = await checkDkim(r.raw, findPublicKey);
      expect(dkim.signatures.map((x) => x.result)).toEqual(['pass']);
    }

    // Three sessions carried the 200 transactions, and Postfix had nothing to complain about.
    const log = await postfix.waitForLog(mark, (l) => sessions(l).length === 3, 'three sessions ending');
    const counts = sessions(log);
    expect(connects(log)).toBe(3);
    expect(counts.reduce((n, s) => n + Number(s.mail), 0)).toBe(200);
    expect(counts.reduce((n, s) => n + Number(s.data), 0)).toBe(200);
    expect(counts.every((s) => s.starttls === '1' && s.quit === '1')).toBe(true);
    expect(log).not.toMatch(PROTOCOL_COMPLAINTS);
  });

  it('pipelining across transactions: the next MAIL FROM follows the end of data before its reply, and Postfix accepts it', async () => {
    const wire = await startWireCounter(postfix.plainPort);
    const mark = postfix.logMark();
    const messages = Array.from({ length: 50 }, (_, i) => builtMessage(i));
    try {
      const outcomes = await withTransport(transportTo(wire.port), (t) =>
        Promise.all(messages.map((m) => send(t, m.raw))),
      );
      for (const o of outcomes) expectSent(o);
    } finally {
      await wire.close();
    }
    await sink.waitFor(messages.map((m) => m.messageId));
    console.info(`wire: ${wire.pipelined} of ${wire.transactions} transactions pipelined`);
    expect(wire.transactions).toBe(50);
    // All but the first could; a few may find the reply already back.
    expect(wire.pipelined, `${wire.pipelined} of 50 transactions pipelined`).toBeGreaterThanOrEqual(25);
    const log = await postfix.waitForLog(
      mark,
      (l) => sessions(l, 'postfix/plain/smtpd').length === 1,
      'the session ending',
    );
    expect(sessions(log, 'postfix/plain/smtpd')[0]).toMatchObject({ mail: '50', data: '50', quit: '1' });
    expect(log).not.toMatch(PROTOCOL_COMPLAINTS);
  });

  it('dot-stuffing: lines that start with "." and a line of only "." arrive unchanged', async () => {
    const body = [
      '.starts with a dot',
      '..starts with two dots',
      '.',
      'between two lone dots',
      '.',
      ' . a space first',
      '...',
      '.end',
      '',
    ].join('\r\n');
    const { raw, messageId } = rawMessage({ Subject: 'dots' }, body);
    await withTransport(transportTo(postfix.port), async (t) => expectSent(await send(t, raw)));
    const [relayed] = await sink.waitFor([messageId]);
    addedByPostfix(relayed!, raw);
    expect(bodyOf(relayed!.raw).toString('utf8')).toBe(body);
    expect((await simpleParser(relayed!.raw)).text).toBe(body.replaceAll('\r\n', '\n'));
  });

  it('8BITMIME: UTF-8 bytes in the body, not encoded, arrive intact and Postfix passes BODY=8BITMIME on', async () => {
    const body = 'Grüße aus Köln — ½ € ✓ 日本語\r\nÆØÅ æøå\r\n';
    const { raw, messageId } = rawMessage(
      { Subject: '8bit body', 'Content-Transfer-Encoding': '8bit' },
      body,
    );
    await withTransport(transportTo(postfix.port), async (t) => expectSent(await send(t, raw)));
    const [relayed] = await sink.waitFor([messageId]);
    addedByPostfix(relayed!, raw);
    expect(bodyOf(relayed!.raw).equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(relayed!.mailArgs).toMatchObject({ BODY: '8BITMIME' });
    expect((await simpleParser(relayed!.raw)).text).toBe(body.replaceAll('\r\n', '\n'));
  });

  it('SMTPUTF8: a recipient with a non-ASCII local part is accepted by Postfix and forwarded', async () => {
    const to = 'jöran@relay.test';
    const { raw, messageId } = rawMessage(
      { To: to, Subject: 'SMTPUTF8', 'Content-Transfer-Encoding': '8bit' },
      'Hej Jöran\r\n',
    );
    await withTransport(transportTo(postfix.port), async (t) => expectSent(await send(t, raw, to)));
    const [relayed] = await sink.waitFor([messageId]);
    expect(relayed!.rcptTo).toEqual([to]);
    expect(relayed!.mailArgs).toMatchObject({ SMTPUTF8: true });
    const received = addedByPostfix(relayed!, raw);
    expect(received).toMatch(/ with UTF8SMTPS id /);
  });

  it('a rejected recipient: 550 5.1.1 is a hard fail that bounces the recipient, and the next message on the pool is delivered', async () => {
    const mark = postfix.logMark();
    const rejected = builtMessage(1, REJECTED_RECIPIENT);
    const next = builtMessage(2);
    await withTransport(transportTo(postfix.port), async (t) => {
      const outcome = await send(t, rejected.raw, REJECTED_RECIPIENT);
      expect(outcome).toEqual({
        kind: 'hard_fail',
        smtpCode: 550,
        enhancedCode: '5.1.1',
        response: REJECTION,
        isRecipientBounce: true,
        reason: 'user_unknown',
      });
      expectSent(await send(t, next.raw));
    });
    await sink.waitFor([next.messageId]);
    await postfix.waitForEmptyQueue();
    expect(sink.byId(rejected.messageId)).toEqual([]);
    // One session: the refusal did not cost the connection.
    const log = await postfix.waitForLog(mark, (l) => sessions(l).length === 1, 'the session ending');
    expect(connects(log)).toBe(1);
    expect(sessions(log)[0]).toMatchObject({ mail: '2', rcpt: '1/2', data: '1/2', rset: '1', quit: '1' });
  });

  it('a rejected recipient among pipelined transactions fails alone: every other message arrives exactly once', async () => {
    const mark = postfix.logMark();
    const messages = Array.from({ length: 30 }, (_, i) => {
      const to = i % 3 === 1 ? REJECTED_RECIPIENT : RECIPIENT;
      return { ...builtMessage(i, to), to };
    });
    const outcomes = await withTransport(transportTo(postfix.port, { poolSize: 2 }), (t) =>
      Promise.all(messages.map((m) => send(t, m.raw, m.to))),
    );
    for (const [i, m] of messages.entries()) {
      if (m.to === REJECTED_RECIPIENT)
        expect(outcomes[i], m.messageId).toMatchObject({ kind: 'hard_fail', isRecipientBounce: true });
      else expectSent(outcomes[i]!);
    }
    const delivered = messages.filter((m) => m.to === RECIPIENT);
    await sink.waitFor(delivered.map((m) => m.messageId));
    await postfix.waitForEmptyQueue();
    for (const m of messages)
      expect(sink.byId(m.messageId), m.messageId).toHaveLength(m.to === RECIPIENT ? 1 : 0);
    const log = await postfix.waitForLog(mark, (l) => sessions(l).length === 2, 'two sessions ending');
    expect(connects(log)).toBe(2);
    expect(log).not.toMatch(PROTOCOL_COMPLAINTS);
  });

  it('requireTLS: ?requireTLS=true delivers through a Postfix that offers STARTTLS, and sends nothing to one that does not', async () => {
    const secured = builtMessage(1);
    await withTransport(transportTo(postfix.port, { query: '?requireTLS=true' }), async (t) =>
      expectSent(await send(t, secured.raw)),
    );
    const [relayed] = await sink.waitFor([secured.messageId]);
    expect(addedByPostfix(relayed!, secured.raw)).toMatch(/ with ESMTPS id /);

    const mark = postfix.logMark();
    const refused = builtMessage(2);
    const outcome = await withTransport(transportTo(postfix.plainPort, { query: '?requireTLS=true' }), (t) =>
      send(t, refused.raw),
    );
    expect(outcome).toMatchObject({ kind: 'soft_fail', response: expect.stringMatching(/requireTLS/) });
    // The client hung up after EHLO: no MAIL FROM reached Postfix.
    const log = await postfix.waitForLog(
      mark,
      (l) => sessions(l, 'postfix/plain/smtpd').length === 1,
      'the plain session ending',
    );
    expect(sessions(log, 'postfix/plain/smtpd')[0]).toMatchObject({ ehlo: '1' });
    expect(sessions(log, 'postfix/plain/smtpd')[0]!.mail).toBeUndefined();
    await postfix.waitForEmptyQueue();
    expect(sink.byId(refused.messageId)).toEqual([]);
  });

  it(`reuse: Postfix dropping an idle pooled connection (smtpd_timeout ${SHORT_TIMEOUT_S}s) does not lose the next message`, async () => {
    const mark = postfix.logMark();
    const first = builtMessage(1);
    const second = builtMessage(2);
    const service = 'postfix/short-timeout/smtpd';
    await withTransport(transportTo(postfix.shortTimeoutPort), async (t) => {
      expectSent(await send(t, first.raw));
      // Postfix times the idle session out with 421 and closes it while it sits in the pool.
      await postfix.waitForLog(
        mark,
        (l) => /timeout after END-OF-MESSAGE/.test(l) && sessions(l, service).length === 1,
        'the idle session timed out',
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expectSent(await send(t, second.raw));
    });
    await sink.waitFor([first.messageId, second.messageId]);
    const log = await postfix.waitForLog(
      mark,
      (l) => sessions(l, service).length === 2,
      'two sessions ending',
    );
    expect(connects(log, service)).toBe(2);
    expect(sessions(log, service).map((s) => s.mail)).toEqual(['1', '1']);
  });
});
