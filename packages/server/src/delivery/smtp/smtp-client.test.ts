// The pooled SMTP client (connection.ts, pool.ts) against a real smtp-server in this process, and
// against a raw TCP server where smtp-server cannot say what a test needs (multi-line refusals, a
// server that never greets, a refusal followed by a close). What arrives is parsed back with
// mailparser; each test is named after the rule it checks.
import net, { type AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerAuthentication,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { classifySmtpError } from '../classify.js';
import { smtpTransport } from '../transports/smtp.js';
import type { OutgoingMessage } from '../transports/transport.js';
import { dataBytes, type SmtpResult } from './connection.js';
import { SmtpPool, type SmtpPoolOptions } from './pool.js';

// ---------------------------------------------------------------------------------------------
// Helpers

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  // Last registered first: pools (and their connections) before the servers they talk to.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('waitFor: condition not met in time');
    await sleep(10);
  }
}

/** Resolves with `p`, or with 'timeout' when `p` takes longer than `ms`. */
const within = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, sleep(ms).then(() => 'timeout' as const)]);

const FROM = 'bounce@mailsvc.test';
const TO = 'rcpt@example.test';
const envelope = (to = TO) => ({ from: FROM, to });

/** A small RFC 5322 message; its Message-ID is <id@mailsvc.test>. */
function message(id: string, body = `The body of ${id}.\r\n`, extraHeaders: string[] = []): Buffer {
  const head = [
    'From: Sender <sender@mailsvc.test>',
    `To: ${TO}`,
    `Subject: ${id}`,
    `Message-ID: <${id}@mailsvc.test>`,
    'Date: Sun, 22 Nov 2026 10:15:30 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    ...extraHeaders,
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}

const outgoing = (id: string): OutgoingMessage => ({
  messageId: id,
  envelope: envelope(),
  raw: message(id),
  meta: { templateId: 'test', subject: id },
});

const idOf = (parsed: ParsedMail) => parsed.messageId?.replace(/^<|@mailsvc\.test>$/g, '');

/** The bytes after the header block (the first empty line). */
function bodyOf(raw: Buffer): Buffer {
  const at = raw.indexOf('\r\n\r\n');
  return raw.subarray(at + 4);
}

function expectFailure(result: SmtpResult) {
  if (result.ok) throw new Error(`expected a failure, got ${result.response}`);
  return result;
}

function pool(port: number, overrides: Partial<SmtpPoolOptions> = {}): SmtpPool {
  const p = new SmtpPool({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: false,
    name: 'client.mailsvc.test',
    tls: { rejectUnauthorized: false },
    connectionTimeoutMs: 2000,
    greetingTimeoutMs: 2000,
    socketTimeoutMs: 2000,
    size: 1,
    maxMessages: 100,
    idleMs: 10_000,
    ...overrides,
  });
  cleanups.push(() => p.close());
  return p;
}

interface SmtpError extends Error {
  responseCode: number;
}
const smtpError = (code: number, text: string): SmtpError =>
  Object.assign(new Error(text), { responseCode: code });

/** What a hook answers: an SMTP error, 'drop' (destroy the socket, no answer), 'hang' (never answer). */
type Answer = SmtpError | 'drop' | 'hang' | undefined;

interface Delivered {
  raw: Buffer;
  parsed: ParsedMail;
  id: string | undefined;
  sessionId: string;
  mailFrom: SMTPServerAddress;
  rcptTo: SMTPServerAddress[];
  bodyType: string | undefined;
  smtpUtf8: boolean | undefined;
  secure: boolean;
  user: unknown;
}

interface SinkHooks {
  mailFrom?(address: SMTPServerAddress, session: SMTPServerSession): Answer;
  rcptTo?(address: SMTPServerAddress, session: SMTPServerSession): Answer;
  data?(raw: Buffer, session: SMTPServerSession): Answer | Promise<Answer>;
  auth?(auth: SMTPServerAuthentication): boolean;
}

interface Sink {
  port: number;
  server: SMTPServer;
  received: Delivered[];
  /** MAIL FROM commands that reached the server (each attempt). */
  mailFroms: { address: string; args: SMTPServerAddress['args']; sessionId: string }[];
  /** Sessions opened and closed (onConnect, onClose). */
  connects: number;
  closes: number;
  /** AUTH attempts: method and user. */
  auths: { method: string; username: string | undefined }[];
  /** The client's bytes per connection as they arrived, one entry a chunk (plain TCP only). */
  chunks: string[][];
  /** Destroys the socket of every open session (an idle connection the server dropped). */
  dropAll(): void;
}

type Connections = Set<{ session: SMTPServerSession; _socket: net.Socket }>;

/** A real smtp-server on a free port: no AUTH, no STARTTLS unless `options` say otherwise. */
async function startSink(options: Partial<SMTPServerOptions> = {}, hooks: SinkHooks = {}): Promise<Sink> {
  const received: Delivered[] = [];
  const mailFroms: Sink['mailFroms'] = [];
  const auths: Sink['auths'] = [];
  const chunks: string[][] = [];
  const sessions = () => (server as unknown as { connections: Connections }).connections;
  const drop = (session: SMTPServerSession) => {
    for (const c of sessions()) if (c.session.id === session.id) c._socket.destroy();
  };
  const answer = (a: Answer, session: SMTPServerSession, callback: (err?: Error) => void) => {
    if (a === 'drop') return drop(session);
    if (a === 'hang') return;
    callback(a);
  };
  const sink = { connects: 0, closes: 0 } as Sink;
  const server: SMTPServer = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    closeTimeout: 500,
    onConnect(_session, callback) {
      sink.connects++;
      callback();
    },
    onClose() {
      sink.closes++;
    },
    onAuth(auth, _session, callback) {
      auths.push({ method: auth.method, username: auth.username });
      if (hooks.auth ? hooks.auth(auth) : false) return callback(null, { user: auth.username });
      callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
    },
    onMailFrom(address, session, callback) {
      mailFroms.push({ address: address.address, args: address.args, sessionId: session.id });
      answer(hooks.mailFrom?.(address, session), session, callback);
    },
    onRcptTo(address, session, callback) {
      answer(hooks.rcptTo?.(address, session), session, callback);
    },
    onData(stream, session, callback) {
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(parts);
        const a = await hooks.data?.(raw, session);
        if (a) return answer(a, session, callback);
        const parsed = await simpleParser(raw);
        const mailFrom = session.envelope.mailFrom as SMTPServerAddress;
        received.push({
          raw,
          parsed,
          id: idOf(parsed),
          sessionId: session.id,
          mailFrom,
          rcptTo: [...session.envelope.rcptTo],
          bodyType: session.envelope.bodyType,
          smtpUtf8: session.envelope.smtpUtf8,
          secure: session.secure,
          user: session.user,
        });
        callback();
      });
    },
    ...options,
  });
  server.on('error', () => {});
  server.server.on('connection', (socket: net.Socket) => {
    const mine: string[] = [];
    chunks.push(mine);
    socket.on('data', (c: Buffer) => mine.push(c.toString('latin1')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return Object.assign(sink, {
    port: (server.server.address() as AddressInfo).port,
    server,
    received,
    mailFroms,
    auths,
    chunks,
    dropAll() {
      for (const c of sessions()) c._socket.destroy();
    },
  });
}

/** Each Message-ID received, with how many times. */
function counts(received: Delivered[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of received) m.set(r.id ?? '?', (m.get(r.id ?? '?') ?? 0) + 1);
  return m;
}

const multiline = (code: number, lines: string[]) =>
  `${lines.map((l, i) => `${code}${i < lines.length - 1 ? '-' : ' '}${l}`).join('\r\n')}\r\n`;

interface RawConn {
  socket: net.Socket;
  /** The command lines the client sent, in order (message data excluded). */
  commands: string[];
  /** The client's bytes as they arrived, one entry a chunk. */
  chunks: string[];
  /** Each message received, dot-stuffing undone. */
  messages: Buffer[];
}

interface RawScript {
  /** The greeting; null: never greet. */
  greeting?: string | null;
  /** The EHLO reply's lines after the code. */
  ehlo?: string[];
  /** Our own answer to a command: the text to write, null for none, undefined for the default. */
  on?(command: string, conn: RawConn): string | null | undefined;
  /** The answer to the end of data: the text, null for none; default 250. */
  endOfData?(message: Buffer, conn: RawConn): string | null | undefined;
}

/** A bare-bones SMTP server on net: answers every command by default, the script overrides. */
async function startRaw(script: RawScript = {}) {
  const conns: RawConn[] = [];
  const server = net.createServer((socket) => {
    const conn: RawConn = { socket, commands: [], chunks: [], messages: [] };
    conns.push(conn);
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let isData = false;
    const write = (text: string | null | undefined) => {
      if (text && !socket.destroyed) socket.write(text);
    };
    const onCommand = (line: string) => {
      conn.commands.push(line);
      const verb = line.split(/[\s:]/, 1)[0]!.toUpperCase();
      const own = script.on?.(line, conn);
      const text =
        own !== undefined
          ? own
          : verb === 'EHLO'
            ? multiline(250, script.ehlo ?? ['raw.test', 'PIPELINING', '8BITMIME'])
            : verb === 'HELO'
              ? '250 raw.test\r\n'
              : verb === 'MAIL'
                ? '250 2.1.0 Ok\r\n'
                : verb === 'RCPT'
                  ? '250 2.1.5 Ok\r\n'
                  : verb === 'DATA'
                    ? '354 End data with <CR><LF>.<CR><LF>\r\n'
                    : verb === 'RSET' || verb === 'NOOP'
                      ? '250 2.0.0 Ok\r\n'
                      : verb === 'QUIT'
                        ? '221 2.0.0 Bye\r\n'
                        : '502 5.5.2 Error: command not recognized\r\n';
      if (text?.startsWith('354')) isData = true;
      write(text);
      if (verb === 'QUIT') socket.end();
    };
    socket.on('data', (chunk: Buffer) => {
      conn.chunks.push(chunk.toString('latin1'));
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (isData) {
          let end: number;
          let message: Buffer;
          if (buf.subarray(0, 3).toString('latin1') === '.\r\n') {
            message = Buffer.alloc(0);
            end = 3;
          } else {
            const at = buf.indexOf('\r\n.\r\n');
            if (at === -1) return;
            message = buf.subarray(0, at + 2);
            end = at + 5;
          }
          buf = buf.subarray(end);
          isData = false;
          const unstuffed = Buffer.from(message.toString('latin1').replace(/(^|\r\n)\./g, '$1'), 'latin1');
          conn.messages.push(unstuffed);
          const text = script.endOfData?.(unstuffed, conn);
          write(text === undefined ? '250 2.0.0 Ok: queued\r\n' : text);
          continue;
        }
        const at = buf.indexOf('\r\n');
        if (at === -1) return;
        const line = buf.subarray(0, at).toString('utf8');
        buf = buf.subarray(at + 2);
        onCommand(line);
      }
    });
    if (script.greeting !== null) write(script.greeting ?? '220 raw.test ESMTP\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of conns) c.socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, conns };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------------------------

describe('dataBytes: the message as DATA sends it (RFC 5321 §4.5.2)', () => {
  const wire = (s: string) => dataBytes(Buffer.from(s, 'latin1')).toString('latin1');

  it('doubles a dot at offset 0 of the message', () => {
    expect(wire('.hidden\r\nrest\r\n')).toBe('..hidden\r\nrest\r\n.\r\n');
  });

  it('doubles the dot at the start of every line, a line that is only "." included, and no other dot', () => {
    expect(wire('a.b\r\n.x\r\n.\r\n..\r\nend.\r\n')).toBe('a.b\r\n..x\r\n..\r\n...\r\nend.\r\n.\r\n');
    // consecutive dot lines, each doubled once
    expect(wire('x\r\n.\r\n.\r\n.\r\n')).toBe('x\r\n..\r\n..\r\n..\r\n.\r\n');
  });

  it('turns bare LF and bare CR into CRLF (and leaves CRLF alone)', () => {
    expect(wire('a\nb\rc\r\nd\r\n')).toBe('a\r\nb\r\nc\r\nd\r\n.\r\n');
    // a dot after a bare line end is at the start of a line too
    expect(wire('a\n.b\r.c\n')).toBe('a\r\n..b\r\n..c\r\n.\r\n');
  });

  it('adds the final CRLF when the message lacks one, and no second one when it has it', () => {
    expect(wire('no end')).toBe('no end\r\n.\r\n');
    expect(wire('x\r\n.')).toBe('x\r\n..\r\n.\r\n');
    expect(wire('has end\r\n')).toBe('has end\r\n.\r\n');
    expect(wire('a lone CR at the end\r')).toBe('a lone CR at the end\r\n.\r\n');
  });

  it('keeps 8-bit bytes as they are', () => {
    const raw = Buffer.from('Grüße, 用户\r\n.ü\r\n', 'utf8');
    expect(dataBytes(raw).equals(Buffer.concat([Buffer.from('Grüße, 用户\r\n..ü\r\n.\r\n', 'utf8')]))).toBe(
      true,
    );
  });
});

describe('replies', () => {
  it('every line of a multi-line EHLO reply is read: SIZE, PIPELINING and SMTPUTF8 take effect from any line', async () => {
    const raw = await startRaw({
      ehlo: ['raw.test greets you', 'SIZE 2000', 'PIPELINING', '8BITMIME', 'SMTPUTF8'],
    });
    const p = pool(raw.port);
    // SMTPUTF8 (the last line) and PIPELINING (a middle one): MAIL, RCPT and DATA in one write
    const ok = await p.send(envelope('jöran@example.test'), message('ehlo-1'));
    expect(ok.ok).toBe(true);
    const conn = raw.conns[0]!;
    expect(conn.commands).toContain('MAIL FROM:<bounce@mailsvc.test> SMTPUTF8');
    expect(conn.chunks.some((c) => /MAIL FROM:.*\r\nRCPT TO:.*\r\nDATA\r\n$/.test(c))).toBe(true);
    // SIZE (the second line): refused before anything is sent
    const before = conn.commands.length;
    const big = expectFailure(await p.send(envelope(), message('ehlo-2', `${'x'.repeat(2100)}\r\n`)));
    expect(big.error.code).toBe('EMESSAGE');
    expect(big.isUnsent).toBe(true);
    expect(conn.commands.length).toBe(before);
  });

  it('a multi-line 550 to RCPT TO reaches the failure whole, every line with its code, even when it arrives in pieces', async () => {
    const lines = [
      '5.1.1 The email account that you tried to reach does not exist.',
      '5.1.1 Please try double-checking the recipient’s address — “jöran” is unknown.',
      '5.1.1 https://support.example.test/mail/?p=NoSuchUser',
    ];
    const reply = Buffer.from(multiline(550, lines), 'utf8');
    const raw = await startRaw({
      on(command, conn) {
        if (command.startsWith('RCPT')) {
          // in three writes, one of them splitting a multi-byte character
          const cut1 = reply.indexOf('—') + 1;
          const cut2 = reply.indexOf('\r\n550 ') + 1;
          conn.socket.write(reply.subarray(0, cut1));
          setTimeout(() => conn.socket.write(reply.subarray(cut1, cut2)), 20);
          setTimeout(() => conn.socket.write(reply.subarray(cut2)), 40);
          return null;
        }
        // DATA came in the same write as RCPT: its answer follows the whole 550
        if (command === 'DATA') {
          setTimeout(() => conn.socket.write('503 5.5.1 Error: need RCPT command\r\n'), 60);
          return null;
        }
        return undefined;
      },
    });
    const result = expectFailure(await pool(raw.port).send(envelope(), message('multi')));
    expect(result.error).toMatchObject({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550 });
    expect(result.error.response).toBe(`550-${lines[0]}\n550-${lines[1]}\n550 ${lines[2]}`);
    expect(classifySmtpError(result.error)).toMatchObject({
      kind: 'hard_fail',
      smtpCode: 550,
      enhancedCode: '5.1.1',
      isRecipientBounce: true,
    });
    expect(raw.conns[0]!.messages).toHaveLength(0);
  });

  it('a multi-line refusal of the greeting fails the message with the whole reply, as a temporary failure (it is about the relay)', async () => {
    const raw = await startRaw({
      greeting: multiline(554, ['raw.test No SMTP service here', 'Your address is on our list']),
    });
    const result = expectFailure(await pool(raw.port).send(envelope(), message('greeting')));
    expect(result.error).toMatchObject({ command: 'greeting' });
    expect(result.error.responseCode).toBeUndefined();
    expect(result.error.response).toBe('554-raw.test No SMTP service here\n554 Your address is on our list');
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(result.isUnsent).toBe(true);
    expect(raw.conns[0]!.commands).toEqual([]);
  });

  it('a server that refuses EHLO gets HELO, then the message one command at a time', async () => {
    const raw = await startRaw({
      on: (command) =>
        command.startsWith('EHLO') ? '502 5.5.2 Error: command not recognized\r\n' : undefined,
    });
    const body = 'Grüße\r\n';
    const result = await pool(raw.port).send(envelope(), message('helo', body));
    expect(result.ok).toBe(true);
    const conn = raw.conns[0]!;
    expect(conn.commands.slice(0, 5)).toEqual([
      'EHLO client.mailsvc.test',
      'HELO client.mailsvc.test',
      // no extensions after HELO: no BODY=8BITMIME
      'MAIL FROM:<bounce@mailsvc.test>',
      'RCPT TO:<rcpt@example.test>',
      'DATA',
    ]);
    expect(conn.chunks.some((c) => /RCPT TO/.test(c) && /MAIL FROM|DATA/.test(c))).toBe(false);
    expect(bodyOf(conn.messages[0]!).toString('utf8')).toBe(body);
  });
});

describe('the message: DATA, 8BITMIME, SIZE', () => {
  it('dot-stuffing: lines starting with "." and a line that is only "." arrive byte-identical', async () => {
    const sink = await startSink();
    const body = [
      '.a line starting with a dot',
      '.',
      '..two dots',
      'middle . dot',
      '...',
      ' .not at the start',
      '.',
      'the end',
      '.',
      '',
    ].join('\r\n');
    const raw = message('dots', body);
    const result = await pool(sink.port).send(envelope(), raw);
    expect(result).toMatchObject({ ok: true, responseCode: 250 });
    expect(sink.received).toHaveLength(1);
    const got = sink.received[0]!;
    expect(got.raw.equals(raw)).toBe(true);
    expect(bodyOf(got.raw).equals(Buffer.from(body, 'latin1'))).toBe(true);
    expect(got.parsed.text).toBe(body.replace(/\r\n/g, '\n'));
    expect(got.id).toBe('dots');
  });

  it('a message with bare LF line ends arrives with CRLF, its lines intact', async () => {
    const sink = await startSink();
    const raw = Buffer.from(
      message('lf', 'one\n.two\nthree\n').toString('latin1').replace(/\r\n/g, '\n'),
      'latin1',
    );
    const result = await pool(sink.port).send(envelope(), raw);
    expect(result.ok).toBe(true);
    const got = sink.received[0]!;
    expect(bodyOf(got.raw).toString('latin1')).toBe('one\r\n.two\r\nthree\r\n');
    expect(got.parsed.text).toBe('one\n.two\nthree\n');
    expect(got.parsed.subject).toBe('lf');
  });

  it('8BITMIME: a message with raw UTF-8 bytes goes with BODY=8BITMIME and arrives intact; an ASCII one without BODY', async () => {
    const sink = await startSink();
    const p = pool(sink.port);
    const body = 'Grüße aus Köln — 你好，世界 — 🚀\r\n.Ünïcödé after a dot\r\n';
    const raw = message('eight', body, ['X-Note: Ümlaut in a header']);
    expect((await p.send(envelope(), raw)).ok).toBe(true);
    expect((await p.send(envelope(), message('seven'))).ok).toBe(true);
    const [eight, seven] = sink.received;
    expect(eight!.mailFrom.args).toEqual({ BODY: '8BITMIME' });
    expect(eight!.bodyType).toBe('8bitmime');
    expect(eight!.raw.equals(raw)).toBe(true);
    expect(eight!.parsed.text).toBe(body.replace(/\r\n/g, '\n'));
    expect(eight!.parsed.headers.get('x-note')).toBe('Ümlaut in a header');
    expect(seven!.mailFrom.args).toBe(false);
    expect(seven!.bodyType).toBe('7bit');
  });

  it('SIZE: a message larger than the server accepts is refused before anything is sent; one within is sent', async () => {
    const sink = await startSink({ size: 1000 });
    const p = pool(sink.port);
    const big = expectFailure(await p.send(envelope(), message('big', `${'y'.repeat(1200)}\r\n`)));
    expect(big.error.code).toBe('EMESSAGE');
    expect(big.error.responseCode).toBeUndefined();
    expect(big.isUnsent).toBe(true);
    expect(classifySmtpError(big.error).kind).toBe('hard_fail');
    expect(sink.mailFroms).toHaveLength(0);
    expect((await p.send(envelope(), message('small'))).ok).toBe(true);
    expect(sink.received.map((r) => r.id)).toEqual(['small']);
    expect(sink.connects).toBe(1);
  });
});

describe('SMTPUTF8 and the envelope', () => {
  it.each([
    ['用户@例子.test', FROM],
    ['jöran@example.com', 'bounce@mailsvc.test'],
    ['rcpt@example.test', 'absender@bücher.test'],
  ])('a non-ASCII address (%s, from %s) goes with SMTPUTF8 when the server offers it', async (to, from) => {
    const sink = await startSink();
    const raw = message('utf8', `Hallo ${to}\r\n`);
    const result = await pool(sink.port).send({ from, to }, raw);
    expect(result.ok).toBe(true);
    const got = sink.received[0]!;
    expect(got.mailFrom.args).toMatchObject({ SMTPUTF8: true });
    expect(got.smtpUtf8).toBe(true);
    expect(got.mailFrom.address).toBe(from);
    expect(got.rcptTo.map((r) => r.address)).toEqual([to]);
    expect(got.parsed.text).toBe(`Hallo ${to}\n`);
  });

  it('a non-ASCII recipient is refused locally (EMESSAGE, nothing sent) when the server does not offer SMTPUTF8; the connection stays in use', async () => {
    const sink = await startSink({ hideSMTPUTF8: true });
    const p = pool(sink.port);
    const result = expectFailure(await p.send(envelope('用户@例子.test'), message('no-utf8')));
    expect(result.error.code).toBe('EMESSAGE');
    expect(result.error.message).toMatch(/SMTPUTF8/);
    expect(result.isUnsent).toBe(true);
    expect(classifySmtpError(result.error).kind).toBe('hard_fail');
    expect(sink.mailFroms).toHaveLength(0);
    expect(sink.received).toHaveLength(0);
    expect((await p.send(envelope(), message('ascii'))).ok).toBe(true);
    expect(sink.received.map((r) => r.id)).toEqual(['ascii']);
    expect(sink.connects).toBe(1);
  });

  it.each([
    ['a CRLF', { from: FROM, to: 'a@example.test>\r\nRCPT TO:<evil@example.test' }],
    ['an angle bracket', { from: 'x<y@mailsvc.test', to: TO }],
    ['a space', { from: FROM, to: 'a b@example.test' }],
    ['a NUL', { from: FROM, to: 'a\0@example.test' }],
  ])('an envelope address with %s is refused before anything is written', async (_what, env) => {
    const raw = await startRaw();
    const p = pool(raw.port);
    const result = expectFailure(await p.send(env, message('unsafe')));
    expect(result.error.code).toBe('EMESSAGE');
    expect(result.isUnsent).toBe(true);
    expect(raw.conns.flatMap((c) => c.commands).filter((c) => /^(MAIL|RCPT)/.test(c))).toEqual([]);
  });
});

describe('TLS', () => {
  it('STARTTLS: a server offering it gets an encrypted session (and EHLO again) before MAIL FROM', async () => {
    const sink = await startSink({ disabledCommands: ['AUTH'] });
    const p = pool(sink.port);
    const results = await Promise.all([1, 2, 3].map((i) => p.send(envelope(), message(`tls-${i}`))));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sink.received.map((r) => r.secure)).toEqual([true, true, true]);
    expect(new Set(sink.received.map((r) => r.id))).toEqual(new Set(['tls-1', 'tls-2', 'tls-3']));
    // the first bytes after STARTTLS are a TLS record, not a command in the clear
    const clear = sink.chunks[0]!.join('');
    expect(clear).toMatch(/^EHLO client\.mailsvc\.test\r\nSTARTTLS\r\n/);
    expect(clear).not.toMatch(/MAIL FROM/);
  });

  it('requireTLS (?requireTLS=true) against a server offering STARTTLS delivers encrypted', async () => {
    const sink = await startSink({ disabledCommands: ['AUTH'] });
    const transport = smtpTransport({
      url: `smtp://127.0.0.1:${sink.port}?requireTLS=true&name=client.mailsvc.test`,
      poolSize: 1,
      tls: { rejectUnauthorized: false },
    });
    cleanups.push(() => transport.close());
    const outcome = await transport.send(outgoing('require'));
    expect(outcome).toMatchObject({ kind: 'sent', smtpCode: 250 });
    expect(sink.received[0]!.secure).toBe(true);
  });

  it('requireTLS against a server without STARTTLS fails with ETLS and sends nothing', async () => {
    const sink = await startSink();
    const result = expectFailure(
      await pool(sink.port, { requireTLS: true }).send(envelope(), message('plain')),
    );
    expect(result.error.code).toBe('ETLS');
    expect(result.isUnsent).toBe(true);
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(sink.mailFroms).toHaveLength(0);
    expect(sink.chunks[0]!.join('')).not.toMatch(/MAIL FROM/);
  });

  it('STARTTLS with a certificate the client does not trust fails with ETLS and sends nothing', async () => {
    const sink = await startSink({ disabledCommands: ['AUTH'] });
    const result = expectFailure(await pool(sink.port, { tls: {} }).send(envelope(), message('untrusted')));
    expect(result.error.code).toBe('ETLS');
    expect(sink.mailFroms).toHaveLength(0);
    expect(sink.received).toHaveLength(0);
  });

  it('implicit TLS (secure: true) against a server listening with TLS', async () => {
    const sink = await startSink({ secure: true });
    const p = pool(sink.port, { secure: true });
    const results = await Promise.all([1, 2].map((i) => p.send(envelope(), message(`smtps-${i}`))));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(sink.received.map((r) => r.secure)).toEqual([true, true]);
    expect(sink.connects).toBe(1);
  });

  it('implicit TLS against a plain server fails with ETLS', async () => {
    const raw = await startRaw();
    const result = expectFailure(
      await pool(raw.port, { secure: true, greetingTimeoutMs: 500, connectionTimeoutMs: 500 }).send(
        envelope(),
        message('x'),
      ),
    );
    expect(result.error.code).toBe('ETLS');
    expect(raw.conns[0]!.commands).toEqual([]);
  });
});

describe('AUTH', () => {
  const good = (auth: SMTPServerAuthentication) =>
    auth.username === 'mailsvc' && auth.password === 's3cret:ü';

  it.each(['PLAIN', 'LOGIN'])('AUTH %s with good credentials delivers as that user', async (method) => {
    const sink = await startSink(
      { authMethods: [method], authOptional: false, disabledCommands: ['STARTTLS'], allowInsecureAuth: true },
      { auth: good },
    );
    const p = pool(sink.port, { auth: { user: 'mailsvc', pass: 's3cret:ü' } });
    const results = await Promise.all([1, 2].map((i) => p.send(envelope(), message(`auth-${i}`))));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(sink.auths).toEqual([{ method, username: 'mailsvc' }]);
    expect(sink.received.map((r) => r.user)).toEqual(['mailsvc', 'mailsvc']);
  });

  it.each(['PLAIN', 'LOGIN'])(
    'AUTH %s with bad credentials fails with EAUTH, a soft failure',
    async (method) => {
      const sink = await startSink(
        {
          authMethods: [method],
          authOptional: false,
          disabledCommands: ['STARTTLS'],
          allowInsecureAuth: true,
        },
        { auth: good },
      );
      const result = expectFailure(
        await pool(sink.port, { auth: { user: 'mailsvc', pass: 'wrong' } }).send(envelope(), message('bad')),
      );
      expect(result.error).toMatchObject({ code: 'EAUTH', command: 'AUTH', responseCode: 535 });
      expect(result.isUnsent).toBe(true);
      expect(classifySmtpError(result.error)).toMatchObject({ kind: 'soft_fail', smtpCode: 535 });
      expect(sink.auths).toEqual([{ method, username: 'mailsvc' }]);
      expect(sink.mailFroms).toHaveLength(0);
    },
  );

  it('a server offering no AUTH while credentials are configured fails with EAUTH and sends nothing', async () => {
    const sink = await startSink();
    const result = expectFailure(
      await pool(sink.port, { auth: { user: 'mailsvc', pass: 'x' } }).send(envelope(), message('noauth')),
    );
    expect(result.error.code).toBe('EAUTH');
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(sink.mailFroms).toHaveLength(0);
  });

  it('credentials in the URL authenticate after STARTTLS (the server refuses AUTH in the clear)', async () => {
    const sink = await startSink(
      { authMethods: ['PLAIN', 'LOGIN'], authOptional: false, disabledCommands: [] },
      { auth: good },
    );
    const transport = smtpTransport({
      url: `smtp://mailsvc:${encodeURIComponent('s3cret:ü')}@127.0.0.1:${sink.port}`,
      poolSize: 1,
      tls: { rejectUnauthorized: false },
    });
    cleanups.push(() => transport.close());
    const outcome = await transport.send(outgoing('url-auth'));
    expect(outcome).toMatchObject({ kind: 'sent' });
    expect(sink.received[0]).toMatchObject({ secure: true, user: 'mailsvc' });
    expect(sink.auths).toEqual([{ method: 'PLAIN', username: 'mailsvc' }]);
  });
});

describe('421, refusals and dropped connections', () => {
  it('421 to MAIL FROM: that message fails soft with 421, the connection is not reused, the next goes out on a fresh one', async () => {
    let refuse = false;
    const sink = await startSink(
      {},
      {
        mailFrom() {
          if (!refuse) return undefined;
          refuse = false;
          return smtpError(421, '4.3.2 Service shutting down');
        },
      },
    );
    const p = pool(sink.port);
    expect((await p.send(envelope(), message('before'))).ok).toBe(true);
    refuse = true;
    const failed = expectFailure(await p.send(envelope(), message('refused')));
    expect(failed.error).toMatchObject({ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 421 });
    expect(failed.error.response).toMatch(/^421 4\.3\.2 Service shutting down/);
    expect(classifySmtpError(failed.error)).toMatchObject({ kind: 'soft_fail', smtpCode: 421 });
    expect((await p.send(envelope(), message('after'))).ok).toBe(true);
    expect(sink.received.map((r) => r.id)).toEqual(['before', 'after']);
    expect(sink.connects).toBe(2);
    expect(sink.received[0]!.sessionId).not.toBe(sink.received[1]!.sessionId);
    // the refused message was tried once: not requeued
    expect(sink.mailFroms).toHaveLength(3);
  });

  it('421 to RCPT TO in a pipelined run: only that message fails (421), the rest arrive exactly once on a fresh connection', async () => {
    const sink = await startSink(
      {},
      {
        rcptTo: (address) =>
          address.address === 'shutdown@example.test'
            ? smtpError(421, '4.4.2 Closing connection')
            : undefined,
      },
    );
    const p = pool(sink.port);
    const tos = [
      'a@example.test',
      'b@example.test',
      'shutdown@example.test',
      'c@example.test',
      'd@example.test',
    ];
    const results = await Promise.all(tos.map((to, i) => p.send(envelope(to), message(`m${i}`))));
    const failed = expectFailure(results[2]!);
    expect(failed.error).toMatchObject({ command: 'RCPT TO', responseCode: 421 });
    expect(classifySmtpError(failed.error).kind).toBe('soft_fail');
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    expect(counts(sink.received)).toEqual(
      new Map([
        ['m0', 1],
        ['m1', 1],
        ['m3', 1],
        ['m4', 1],
      ]),
    );
    expect(sink.connects).toBe(2);
    const sessionOf = (id: string) => sink.received.find((r) => r.id === id)!.sessionId;
    expect(sessionOf('m3')).not.toBe(sessionOf('m1'));
  });

  it('421 to the end of data: that message fails soft; the one pipelined behind it goes again on a fresh connection and arrives once', async () => {
    const sink = await startSink(
      {},
      {
        data: (raw) =>
          raw.includes('Subject: shutdown') ? smtpError(421, '4.3.2 Shutting down') : undefined,
      },
    );
    const p = pool(sink.port);
    const results = await Promise.all(
      ['before', 'shutdown', 'behind', 'after'].map((id) => p.send(envelope(), message(id))),
    );
    const failed = expectFailure(results[1]!);
    expect(failed.error).toMatchObject({ code: 'EMESSAGE', command: 'DATA', responseCode: 421 });
    expect(classifySmtpError(failed.error)).toMatchObject({ kind: 'soft_fail', smtpCode: 421 });
    expect([0, 2, 3].map((i) => results[i]!.ok)).toEqual([true, true, true]);
    expect(counts(sink.received)).toEqual(
      new Map([
        ['before', 1],
        ['behind', 1],
        ['after', 1],
      ]),
    );
    expect(sink.connects).toBe(2);
    const sessionOf = (id: string) => sink.received.find((r) => r.id === id)!.sessionId;
    expect(sessionOf('behind')).not.toBe(sessionOf('before'));
  });

  it('an idle connection the server timed out (421) is not used again: the next send succeeds on a fresh one', async () => {
    const sink = await startSink({ socketTimeout: 300 });
    const p = pool(sink.port);
    expect((await p.send(envelope(), message('first'))).ok).toBe(true);
    await waitFor(() => sink.closes === 1);
    await waitFor(() => p.size === 0);
    expect((await p.send(envelope(), message('second'))).ok).toBe(true);
    expect(sink.received.map((r) => r.id)).toEqual(['first', 'second']);
    expect(sink.connects).toBe(2);
  });

  it('an idle connection the server dropped without a word: the next send succeeds on a fresh one', async () => {
    const sink = await startSink();
    const p = pool(sink.port);
    expect((await p.send(envelope(), message('first'))).ok).toBe(true);
    sink.dropAll();
    await waitFor(() => sink.closes === 1);
    expect((await p.send(envelope(), message('second'))).ok).toBe(true);
    expect(counts(sink.received)).toEqual(
      new Map([
        ['first', 1],
        ['second', 1],
      ]),
    );
    expect(sink.connects).toBe(2);
  });

  it('a pooled connection that drops mid-transaction is retried once on a fresh connection, and delivered', async () => {
    let drops = 0;
    const sink = await startSink({}, { mailFrom: () => (drops-- > 0 ? 'drop' : undefined) });
    const p = pool(sink.port);
    expect((await p.send(envelope(), message('first'))).ok).toBe(true);
    drops = 1;
    const result = await p.send(envelope(), message('second'));
    expect(result.ok).toBe(true);
    expect(counts(sink.received)).toEqual(
      new Map([
        ['first', 1],
        ['second', 1],
      ]),
    );
    expect(sink.connects).toBe(2);
    expect(sink.mailFroms).toHaveLength(3);
  });

  it('a connection that drops again on the retry is not retried a third time: ECONNECTION, soft', async () => {
    const sink = await startSink({}, { rcptTo: () => 'drop' });
    const result = expectFailure(await pool(sink.port).send(envelope(), message('dropped')));
    expect(result.error.code).toBe('ECONNECTION');
    expect(result.error.responseCode).toBeUndefined();
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(sink.connects).toBe(2);
    expect(sink.mailFroms).toHaveLength(2);
    expect(sink.received).toHaveLength(0);
  });

  it('a refused recipient (550 5.1.1) in a pipelined transaction fails with RCPT TO; the next message on the same connection is delivered', async () => {
    const sink = await startSink(
      {},
      {
        rcptTo: (address) =>
          address.address.startsWith('unknown')
            ? smtpError(550, '5.1.1 The email account that you tried to reach does not exist')
            : undefined,
      },
    );
    const p = pool(sink.port);
    const tos = [
      'a@example.test',
      'unknown@example.test',
      'b@example.test',
      'unknown2@example.test',
      'c@example.test',
    ];
    const results = await Promise.all(tos.map((to, i) => p.send(envelope(to), message(`r${i}`))));
    for (const i of [1, 3]) {
      const failed = expectFailure(results[i]!);
      expect(failed.error).toMatchObject({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550 });
      expect(classifySmtpError(failed.error)).toMatchObject({
        kind: 'hard_fail',
        enhancedCode: '5.1.1',
        isRecipientBounce: true,
      });
    }
    expect([0, 2, 4].map((i) => results[i]!.ok)).toEqual([true, true, true]);
    expect(counts(sink.received)).toEqual(
      new Map([
        ['r0', 1],
        ['r2', 1],
        ['r4', 1],
      ]),
    );
    // one connection throughout: after each refusal the session was reset for the next MAIL FROM
    expect(sink.connects).toBe(1);
    expect(new Set(sink.received.map((r) => r.sessionId)).size).toBe(1);
    expect(sink.received.find((r) => r.id === 'r2')!.rcptTo.map((r) => r.address)).toEqual([
      'b@example.test',
    ]);
  });

  it.each([
    ['without PIPELINING, closed right after the 550', false, 'none'],
    ['pipelined, DATA refused with 503, then closed', true, '503'],
    ['pipelined, DATA opened with 354, the empty message unanswered and closed', true, '354'],
  ] as const)(
    'a refusal the server follows with closing the connection stays the answer (%s): not retried, not soft',
    async (_what, isPipelining, dataAnswer) => {
      const raw = await startRaw({
        ehlo: isPipelining ? ['raw.test', 'PIPELINING'] : ['raw.test'],
        on(command, conn) {
          if (command.startsWith('RCPT')) {
            conn.socket.write('550 5.1.1 No such user here\r\n');
            if (dataAnswer === 'none') conn.socket.end();
            return null;
          }
          if (command === 'DATA' && dataAnswer === '503') {
            conn.socket.end('503 5.5.1 Error: need RCPT command\r\n');
            return null;
          }
          return undefined;
        },
        endOfData(_message, conn) {
          conn.socket.end();
          return null;
        },
      });
      const result = expectFailure(await pool(raw.port).send(envelope(), message('refused-then-closed')));
      expect(result.error).toMatchObject({ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550 });
      expect(classifySmtpError(result.error)).toMatchObject({ kind: 'hard_fail', isRecipientBounce: true });
      expect(raw.conns).toHaveLength(1);
      if (dataAnswer === '354') expect(raw.conns[0]!.messages.map((m) => m.length)).toEqual([0]);
    },
  );

  it('a server that opens DATA after refusing the only recipient gets an empty message, not ours; the next is delivered', async () => {
    const raw = await startRaw({
      on: (command) =>
        command === 'RCPT TO:<unknown@example.test>' ? '550 5.1.1 No such user here\r\n' : undefined,
    });
    const p = pool(raw.port);
    const results = await Promise.all([
      p.send(envelope('unknown@example.test'), message('nobody')),
      p.send(envelope(), message('somebody')),
    ]);
    expect(expectFailure(results[0]!).error).toMatchObject({ command: 'RCPT TO', responseCode: 550 });
    expect(results[1]!.ok).toBe(true);
    const conn = raw.conns[0]!;
    expect(raw.conns).toHaveLength(1);
    const ids = await Promise.all(
      conn.messages.map(async (m) => (m.length === 0 ? '(empty)' : idOf(await simpleParser(m)))),
    );
    expect(ids).toEqual(['(empty)', 'somebody']);
    expect(conn.commands).toContain('RSET');
  });
});

describe('timeouts and refused connections', () => {
  it('a server that accepts but never greets: ETIMEDOUT within greetingTimeoutMs', async () => {
    const raw = await startRaw({ greeting: null });
    const p = pool(raw.port, { greetingTimeoutMs: 300, socketTimeoutMs: 5000 });
    const started = Date.now();
    const result = expectFailure(await p.send(envelope(), message('silent')));
    const took = Date.now() - started;
    expect(result.error.code).toBe('ETIMEDOUT');
    expect(result.error.message).toMatch(/greeting/);
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(took).toBeGreaterThanOrEqual(280);
    expect(took).toBeLessThan(1500);
    expect(raw.conns).toHaveLength(1);
  });

  it('a server that never answers the end of data: ETIMEDOUT within socketTimeoutMs, not retried', async () => {
    let dataAt = 0;
    const sink = await startSink(
      {},
      {
        data: () => {
          dataAt = Date.now();
          return 'hang';
        },
      },
    );
    const p = pool(sink.port, { socketTimeoutMs: 300 });
    const result = expectFailure(await p.send(envelope(), message('unanswered')));
    const took = Date.now() - dataAt;
    expect(result.error.code).toBe('ETIMEDOUT');
    expect(result.isUnsent).toBe(false);
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(1500);
    expect(sink.connects).toBe(1);
    expect(sink.mailFroms).toHaveLength(1);
    expect(p.size).toBe(0);
  });

  it('a closed port: ECONNECTION, soft', async () => {
    const port = await closedPort();
    const p = pool(port, { size: 2 });
    const results = await Promise.all([p.send(envelope(), message('a')), p.send(envelope(), message('b'))]);
    for (const r of results) {
      const failed = expectFailure(r);
      expect(failed.error.code).toBe('ECONNECTION');
      expect(failed.isUnsent).toBe(true);
      expect(classifySmtpError(failed.error).kind).toBe('soft_fail');
    }
  });
});

describe('the pool: reuse, pipelining, maxMessages, close', () => {
  it('50 messages through a pool of size 2 arrive exactly once each, over at most 2 connections, pipelined', async () => {
    const sink = await startSink();
    const p = pool(sink.port, { size: 2 });
    const ids = Array.from({ length: 50 }, (_, i) => `bulk-${i}`);
    const results = await Promise.all(ids.map((id) => p.send(envelope(`${id}@example.test`), message(id))));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(sink.received).toHaveLength(50);
    expect(counts(sink.received)).toEqual(new Map(ids.map((id) => [id, 1])));
    // each message went to its own recipient
    for (const r of sink.received) expect(r.rcptTo.map((t) => t.address)).toEqual([`${r.id}@example.test`]);
    expect(sink.connects).toBeLessThanOrEqual(2);
    expect(p.size).toBeLessThanOrEqual(2);
    // MAIL FROM, RCPT TO and DATA went in one write
    expect(sink.chunks.flat().some((c) => /MAIL FROM:[^\r]*\r\nRCPT TO:[^\r]*\r\nDATA\r\n/.test(c))).toBe(
      true,
    );
  });

  it("the next transaction's commands follow a message's end of data without waiting for its reply", async () => {
    // The server holds each message's reply until it has the next MAIL FROM on that connection
    // (or 500 ms): with the client pipelining after the end of data, it never waits that long.
    const seenMail = (sessionId: string) => sink.mailFroms.filter((m) => m.sessionId === sessionId).length;
    const early: boolean[] = [];
    const sink: Sink = await startSink(
      {},
      {
        async data(_raw, session) {
          const k = seenMail(session.id);
          const until = Date.now() + 500;
          // smtp-server reads the next MAIL FROM only after this reply: watch the wire instead
          const nextMailOnWire = () =>
            (sink.chunks
              .at(-1)!
              .join('')
              .match(/MAIL FROM:/g)?.length ?? 0) > k;
          while (!nextMailOnWire() && Date.now() < until) await sleep(5);
          early.push(nextMailOnWire());
          return undefined;
        },
      },
    );
    const p = pool(sink.port);
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => p.send(envelope(), message(`next-${i}`))));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sink.connects).toBe(1);
    // every message but the last had the next one's MAIL FROM behind it
    expect(early).toEqual([true, true, true, true, false]);
  });

  it('maxMessages 10: connections are replaced after 10 transactions, and every message still arrives exactly once', async () => {
    const sink = await startSink();
    const p = pool(sink.port, { size: 2, maxMessages: 10 });
    const ids = Array.from({ length: 50 }, (_, i) => `max-${i}`);
    const results = await Promise.all(ids.map((id) => p.send(envelope(), message(id))));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(counts(sink.received)).toEqual(new Map(ids.map((id) => [id, 1])));
    const perSession = new Map<string, number>();
    for (const r of sink.received) perSession.set(r.sessionId, (perSession.get(r.sessionId) ?? 0) + 1);
    expect(Math.max(...perSession.values())).toBeLessThanOrEqual(10);
    expect(sink.connects).toBeGreaterThanOrEqual(5);
    expect(sink.connects).toBe(perSession.size);
    expect(p.size).toBeLessThanOrEqual(2);
  });

  it('a server without PIPELINING gets every message, one command at a time', async () => {
    const sink = await startSink({ hidePIPELINING: true });
    const p = pool(sink.port, { size: 2 });
    const ids = Array.from({ length: 12 }, (_, i) => `serial-${i}`);
    const results = await Promise.all(ids.map((id) => p.send(envelope(), message(id))));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(counts(sink.received)).toEqual(new Map(ids.map((id) => [id, 1])));
    expect(sink.connects).toBeLessThanOrEqual(2);
    // no chunk from the client holds two commands, nor a command after a message's end
    for (const chunk of sink.chunks.flat()) {
      const commands = chunk.match(/^(EHLO|MAIL FROM|RCPT TO|DATA|RSET|QUIT)\b/gm) ?? [];
      expect(commands.length, JSON.stringify(chunk.slice(0, 200))).toBeLessThanOrEqual(1);
      if (chunk.includes('\r\n.\r\n')) expect(chunk.endsWith('\r\n.\r\n')).toBe(true);
    }
  });

  it('idle connections are closed after idleMs', async () => {
    const sink = await startSink();
    const p = pool(sink.port, { idleMs: 100 });
    expect((await p.send(envelope(), message('idle'))).ok).toBe(true);
    expect(p.size).toBe(1);
    await waitFor(() => p.size === 0 && sink.closes === 1, 1000);
    expect(sink.chunks[0]!.join('')).toMatch(/QUIT\r\n$/);
  });

  it('close() resolves, says QUIT on idle connections, and fails what is sent afterwards', async () => {
    const sink = await startSink();
    const p = pool(sink.port, { size: 2 });
    await Promise.all([1, 2, 3, 4].map((i) => p.send(envelope(), message(`c${i}`))));
    expect(sink.connects).toBe(2);
    await p.close();
    expect(p.size).toBe(0);
    await waitFor(() => sink.closes === 2, 1500);
    for (const chunks of sink.chunks) expect(chunks.join('')).toMatch(/QUIT\r\n$/);
    const after = expectFailure(await p.send(envelope(), message('late')));
    expect(after.error.code).toBe('ECONNECTION');
    expect(after.isUnsent).toBe(true);
    expect(sink.connects).toBe(2);
  });

  it('close() while a message is in flight: the message completes, then its connection quits', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inData = false;
    const sink = await startSink(
      {},
      {
        async data() {
          inData = true;
          await held;
          return undefined;
        },
      },
    );
    const p = pool(sink.port);
    const sending = p.send(envelope(), message('in-flight'));
    const waiting = p.send(envelope(), message('queued'));
    await waitFor(() => inData);
    await p.close();
    release();
    expect((await sending).ok).toBe(true);
    const queued = await waiting;
    // the queued one was either pipelined already (then it completes) or failed by close()
    expect(queued.ok || (!queued.ok && queued.error.code === 'ECONNECTION')).toBe(true);
    await waitFor(() => sink.closes === 1, 1500);
    expect(sink.connects).toBe(1);
  });

  it('close() while a message is in flight whose connection then drops: the message fails, it does not hang', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inData = false;
    const sink = await startSink(
      {},
      {
        async data(): Promise<Answer> {
          inData = true;
          await held;
          return 'drop';
        },
      },
    );
    const p = pool(sink.port);
    const sending = p.send(envelope(), message('dropped-at-close'));
    await waitFor(() => inData);
    await p.close();
    release();
    const result = await within(sending, 1500);
    expect(result).not.toBe('timeout');
    expect(result).toMatchObject({ ok: false, error: { code: 'ECONNECTION' } });
    expect(sink.connects).toBe(1);
  });
});

describe('review findings: duplicates, STARTTLS injection, 421 without a close, session refusals', () => {
  it('a connection that drops after the message was written is not re-sent: one copy, a soft failure for the worker to retry', async () => {
    const raw = await startRaw({
      // the message is read whole, then the connection drops before the 250
      endOfData: (_m, conn) => {
        conn.socket.destroy();
        return null;
      },
    });
    const p = pool(raw.port);
    const result = expectFailure(await p.send(envelope(), message('once')));
    expect(result.error.code).toBe('ECONNECTION');
    expect(result.isUnsent).toBe(false);
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    const copies = raw.conns.flatMap((c) => c.messages);
    expect(copies).toHaveLength(1);
  });

  it('bytes injected after the 220 to STARTTLS end the session: nothing from before TLS counts after it, nothing is sent', async () => {
    const raw = await startRaw({
      ehlo: ['raw.test', 'PIPELINING', 'STARTTLS'],
      // a man in the middle appends an EHLO reply in the clear, meant to be read over TLS
      on: (command) =>
        command === 'STARTTLS' ? '220 go ahead\r\n250-raw.test\r\n250 SIZE 10\r\n' : undefined,
    });
    const p = pool(raw.port, { requireTLS: true });
    const result = expectFailure(await p.send(envelope(), message('tls')));
    expect(result.error.code).toBe('EPROTOCOL');
    expect(classifySmtpError(result.error).kind).toBe('soft_fail');
    expect(raw.conns.flatMap((c) => c.commands).some((c) => c.startsWith('MAIL'))).toBe(false);
  });

  it('a reply nobody asked for ends the connection instead of answering the next command', async () => {
    let isInjected = false;
    const raw = await startRaw({
      ehlo: ['raw.test', '8BITMIME'],
      on: (command, conn) => {
        if (command.startsWith('MAIL') && !isInjected) {
          isInjected = true;
          // two replies to one command: the second would be taken as RCPT's answer
          conn.socket.write('250 2.1.0 Ok\r\n250 2.1.0 Ok\r\n');
          return null;
        }
        return undefined;
      },
    });
    const p = pool(raw.port);
    const result = await within(p.send(envelope(), message('extra')), 1500);
    expect(result).not.toBe('timeout');
    const failed = expectFailure(result as SmtpResult);
    expect(failed.error.code).toBe('EPROTOCOL');
    expect(failed.isUnsent).toBe(true);
    expect(classifySmtpError(failed.error).kind).toBe('soft_fail');
    expect(raw.conns.flatMap((c) => c.messages)).toHaveLength(0);
  });

  it('a 421 the server does not follow with a close fails what is pipelined behind it at once, not at the socket timeout', async () => {
    let refused = 0;
    const raw = await startRaw({
      on: (command) =>
        command.startsWith('MAIL') && refused++ === 0 ? '421 4.3.2 Shutting down\r\n' : undefined,
    });
    const p = pool(raw.port, { socketTimeoutMs: 5000 });
    const started = Date.now();
    const [first, second] = await Promise.all([
      p.send(envelope(), message('a')),
      p.send(envelope(), message('b')),
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(expectFailure(first).error.responseCode).toBe(421);
    expect(second.ok).toBe(true);
  });

  it('a 5xx greeting or EHLO refusal is about the relay, not the message: a soft failure', async () => {
    const greeting = await startRaw({ greeting: '554 5.7.1 No service for you\r\n' });
    const a = expectFailure(await pool(greeting.port).send(envelope(), message('g')));
    expect(a.error.response).toContain('554 5.7.1');
    expect(classifySmtpError(a.error).kind).toBe('soft_fail');
    const ehlo = await startRaw({
      on: (command) => (/^(EHLO|HELO)/.test(command) ? '550 5.7.1 Go away\r\n' : undefined),
    });
    const b = expectFailure(await pool(ehlo.port).send(envelope(), message('e')));
    expect(classifySmtpError(b.error).kind).toBe('soft_fail');
  });
});

describe('priority', () => {
  it('waiting messages go out in priority order: a login code queued behind notifications goes next', async () => {
    const order: string[] = [];
    const raw = await startRaw({
      ehlo: ['raw.test', '8BITMIME'],
      endOfData: (m) => {
        order.push(/^Subject: (\S+)/m.exec(m.toString('latin1'))![1]!);
        return undefined;
      },
    });
    const p = pool(raw.port, { size: 1 });
    const sends = ['n1', 'n2', 'n3', 'n4'].map((id) => p.send(envelope(), message(id), 4));
    sends.push(p.send(envelope(), message('code'), 0));
    await Promise.all(sends);
    // all five wait while the connection opens: the login code, queued last, goes first
    expect(order).toEqual(['code', 'n1', 'n2', 'n3', 'n4']);
  });
});
