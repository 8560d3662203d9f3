// The servers the SMTP client's tests (smtp-*.test.ts) talk to: a real smtp-server in this process
// (startSink), and a raw TCP server where smtp-server cannot say what a test needs (startRaw:
// multi-line refusals, a server that never greets, a refusal followed by a close); the messages
// they send and what they check with. Each test file runs runCleanups after each test.
import net, { type AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerAuthentication,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server';
import type { OutgoingMessage } from '../transports/transport.js';
import { SmtpPool, type SmtpPoolOptions } from './pool.js';
import type { SmtpResult } from './transaction.js';

export const cleanups: (() => Promise<void> | void)[] = [];

/** Each test file's afterEach: last registered first, pools (and their connections) before the servers they talk to. */
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('waitFor: condition not met in time');
    await sleep(10);
  }
}

/** Resolves with `p`, or with 'timeout' when `p` takes longer than `ms`. */
export const within = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, sleep(ms).then(() => 'timeout' as const)]);

export const FROM = 'bounce@mailsvc.test';
export const TO = 'rcpt@example.test';
export const envelope = (to = TO) => ({ from: FROM, to });

/** A small RFC 5322 message; its Message-ID is <id@mailsvc.test>. */
export function message(id: string, body = `The body of ${id}.\r\n`, extraHeaders: string[] = []): Buffer {
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

export const outgoing = (id: string): OutgoingMessage => ({
  messageId: id,
  envelope: envelope(),
  raw: message(id),
  meta: { templateId: 'test', subject: id },
});

export const idOf = (parsed: ParsedMail) => parsed.messageId?.replace(/^<|@mailsvc\.test>$/g, '');

/** The bytes after the header block (the first empty line). */
export function bodyOf(raw: Buffer): Buffer {
  const at = raw.indexOf('\r\n\r\n');
  return raw.subarray(at + 4);
}

export function expectFailure(result: SmtpResult) {
  if (result.ok) throw new Error(`expected a failure, got ${result.response}`);
  return result;
}

export function pool(port: number, overrides: Partial<SmtpPoolOptions> = {}): SmtpPool {
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

export interface SmtpError extends Error {
  responseCode: number;
}
export const smtpError = (code: number, text: string): SmtpError =>
  Object.assign(new Error(text), { responseCode: code });

/** What a hook answers: an SMTP error, 'drop' (destroy the socket, no answer), 'hang' (never answer). */
export type Answer = SmtpError | 'drop' | 'hang' | undefined;

export interface Delivered {
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

export interface SinkHooks {
  mailFrom?(address: SMTPServerAddress, session: SMTPServerSession): Answer;
  rcptTo?(address: SMTPServerAddress, session: SMTPServerSession): Answer;
  data?(raw: Buffer, session: SMTPServerSession): Answer | Promise<Answer>;
  auth?(auth: SMTPServerAuthentication): boolean;
}

export interface Sink {
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

export type Connections = Set<{ session: SMTPServerSession; _socket: net.Socket }>;

/** A message as the sink received it, parsed. */
async function delivered(raw: Buffer, session: SMTPServerSession): Promise<Delivered> {
  const parsed = await simpleParser(raw);
  return {
    raw,
    parsed,
    id: idOf(parsed),
    sessionId: session.id,
    mailFrom: session.envelope.mailFrom as SMTPServerAddress,
    rcptTo: [...session.envelope.rcptTo],
    bodyType: session.envelope.bodyType,
    smtpUtf8: session.envelope.smtpUtf8,
    secure: session.secure,
    user: session.user,
  };
}

/** A real smtp-server on a free port: no AUTH, no STARTTLS unless `options` say otherwise. */
export async function startSink(
  options: Partial<SMTPServerOptions> = {},
  hooks: SinkHooks = {},
): Promise<Sink> {
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
        received.push(await delivered(raw, session));
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
export function counts(received: Delivered[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of received) m.set(r.id ?? '?', (m.get(r.id ?? '?') ?? 0) + 1);
  return m;
}

export const multiline = (code: number, lines: string[]) =>
  `${lines.map((l, i) => `${code}${i < lines.length - 1 ? '-' : ' '}${l}`).join('\r\n')}\r\n`;

export interface RawConn {
  socket: net.Socket;
  /** The command lines the client sent, in order (message data excluded). */
  commands: string[];
  /** The client's bytes as they arrived, one entry a chunk. */
  chunks: string[];
  /** Each message received, dot-stuffing undone. */
  messages: Buffer[];
}

export interface RawScript {
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
export async function startRaw(script: RawScript = {}) {
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
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
