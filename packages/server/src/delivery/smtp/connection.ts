// One SMTP client connection (RFC 5321) for the worker's hot path: greeting, EHLO (HELO when
// refused), STARTTLS (RFC 3207), AUTH PLAIN/LOGIN (RFC 4954), then transactions, each written as
// MAIL FROM + RCPT TO + DATA in one write when the server offers PIPELINING (RFC 2920) and the
// dot-stuffed message plus the end of data in a second: two round trips a message instead of four.
// BODY=8BITMIME (RFC 6152) when the message has 8-bit bytes, SMTPUTF8 (RFC 6531) when an address
// is not ASCII. Written here rather than with nodemailer's SMTPConnection because that one streams
// each message through transforms and waits for every reply: 3,200 messages/s into the bench's
// sink against 9,500 with this shape (bench/RESULTS.md, delivery).
import { isAscii } from 'node:buffer';
import net from 'node:net';
import os from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import tls from 'node:tls';
import { toCrlf } from '../crlf.js';

export interface SmtpConnectionOptions {
  host: string;
  port: number;
  /** Implicit TLS (smtps://). */
  secure: boolean;
  /** Refuse to send unless the session is encrypted (STARTTLS offered and done, or implicit TLS). */
  requireTLS: boolean;
  auth?: { user: string; pass: string };
  tls?: tls.ConnectionOptions;
  /** The EHLO name; default this host's name when it is a domain, else [127.0.0.1]. */
  name?: string;
  connectionTimeoutMs: number;
  greetingTimeoutMs: number;
  /** Longest wait for any reply once connected. */
  socketTimeoutMs: number;
}

/** Why a transaction or the connection failed; the shape classify.ts reads. */
export interface SmtpFailure {
  /**
   * ECONNECTION (refused, dropped), ETIMEDOUT, ETLS, EAUTH, EPROTOCOL (a reply we cannot read),
   * EENVELOPE (MAIL or RCPT refused), EMESSAGE (DATA refused, or refused by us before sending).
   */
  code: 'ECONNECTION' | 'ETIMEDOUT' | 'ETLS' | 'EAUTH' | 'EPROTOCOL' | 'EENVELOPE' | 'EMESSAGE';
  message: string;
  command?: string;
  responseCode?: number;
  response?: string;
}

export type SmtpResult =
  | { ok: true; responseCode: number; response: string }
  | {
      ok: false;
      error: SmtpFailure;
      /**
       * The message's data was not written: nothing can have reached the server's queue, so
       * sending it again on another connection cannot make a duplicate.
       */
      isUnsent: boolean;
    };

interface Reply {
  code: number;
  /** The reply's lines joined with a newline, each with its code, as the server sent them. */
  text: string;
  /** The text of each line after the code (EHLO keywords). */
  lines: string[];
}

interface Waiter {
  resolve(r: Reply): void;
  reject(e: SmtpFailure): void;
}

const MAX_LINE = 4096;
const MAX_REPLY_LINES = 128;
const CRLF = Buffer.from('\r\n');
const END_OF_DATA = Buffer.from('.\r\n');

const fail = (code: SmtpFailure['code'], message: string, extra: Partial<SmtpFailure> = {}): SmtpFailure => ({
  code,
  message,
  ...extra,
});

const fromReply = (code: SmtpFailure['code'], command: string, r: Reply): SmtpFailure =>
  fail(code, `${command} answered ${r.text}`, { command, responseCode: r.code, response: r.text });

/**
 * A refusal of the session (greeting, EHLO, STARTTLS) says nothing about the message: its
 * reply code is left out, so classify.ts treats it as temporary (the relay's configuration or
 * state), whatever the code, and the message waits for the relay instead of failing for good.
 */
const sessionRefusal = (code: SmtpFailure['code'], command: string, r: Reply): SmtpFailure =>
  fail(code, `${command} answered ${r.text}`, { command, response: r.text });

function defaultName(): string {
  const host = os.hostname();
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) ? host : '[127.0.0.1]';
}

/**
 * The message as DATA sends it (RFC 5321 §4.5.2): CRLF line ends, a "." doubled at the start of
 * every line, a final CRLF, then the end-of-data line — one buffer for one write.
 */
export function dataBytes(raw: Buffer): Buffer {
  // Bare CR or LF become CRLF (a no-op for our own MIME, which is CRLF throughout).
  const message = toCrlf(raw);
  const parts: Buffer[] = [];
  let from = 0;
  if (message[0] === 0x2e) {
    parts.push(Buffer.from('.'));
  }
  for (let i = message.indexOf('\r\n.'); i !== -1; i = message.indexOf('\r\n.', i + 3)) {
    parts.push(message.subarray(from, i + 2), Buffer.from('.'));
    from = i + 2;
  }
  parts.push(message.subarray(from));
  if (message.length > 0 && !(message[message.length - 2] === 13 && message[message.length - 1] === 10))
    parts.push(CRLF);
  parts.push(END_OF_DATA);
  return Buffer.concat(parts);
}

const ENVELOPE_UNSAFE = /[\x00-\x20<>\x7f]/;

export class SmtpConnection {
  private socket: net.Socket | tls.TLSSocket;
  private buffer = '';
  private decoder = new StringDecoder('utf8');
  private pendingLines: string[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly extensions = new Map<string, string>();
  private closedWith: SmtpFailure | null = null;
  private isSecure: boolean;
  /** False once the server said 421, the connection dropped, or a reply could not be read. */
  isUsable = true;
  /** The pool's bookkeeping: transactions running (two while one awaits its final reply) and started. */
  active = 0;
  started = 0;
  /** A transaction has written its message and awaits only its final reply. */
  isAwaitingFinalReply = false;
  onClose: (() => void) | undefined;
  /** Called when a transaction has written its message and awaits only the final reply. */
  onDataWritten: (() => void) | undefined;

  private constructor(
    private readonly opts: SmtpConnectionOptions,
    socket: net.Socket | tls.TLSSocket,
  ) {
    this.socket = socket;
    this.isSecure = opts.secure;
    this.attach(socket);
  }

  /** Connects, reads the greeting, says EHLO, upgrades with STARTTLS, authenticates. */
  static async open(opts: SmtpConnectionOptions): Promise<SmtpConnection> {
    const socket = await new Promise<net.Socket | tls.TLSSocket>((resolve, reject) => {
      const s = opts.secure
        ? tls.connect({
            host: opts.host,
            port: opts.port,
            ...(net.isIP(opts.host) === 0 && { servername: opts.host }),
            ...opts.tls,
          })
        : net.connect({ host: opts.host, port: opts.port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(fail('ETIMEDOUT', `Connection to ${opts.host}:${opts.port} timed out`));
      }, opts.connectionTimeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        s.destroy();
        reject(fail(opts.secure ? 'ETLS' : 'ECONNECTION', err.message));
      };
      s.once('error', onError);
      s.once(opts.secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        s.off('error', onError);
        resolve(s);
      });
    });
    const conn = new SmtpConnection(opts, socket);
    try {
      await conn.handshake();
      return conn;
    } catch (err) {
      conn.destroy();
      throw err;
    }
  }

  private attach(socket: net.Socket | tls.TLSSocket): void {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.terminate(fail('ECONNECTION', err.message)));
    socket.on('close', () => this.terminate(fail('ECONNECTION', 'Connection closed unexpectedly')));
    socket.on('timeout', () =>
      this.terminate(
        fail('ETIMEDOUT', `No answer from ${this.opts.host} within ${this.opts.socketTimeoutMs} ms`),
      ),
    );
  }

  private onData(chunk: Buffer): void {
    this.buffer += this.decoder.write(chunk);
    let at = this.buffer.indexOf('\n');
    while (at !== -1) {
      const line = this.buffer.slice(0, at).replace(/\r$/, '');
      this.buffer = this.buffer.slice(at + 1);
      if (!this.onLine(line)) return;
      at = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > MAX_LINE)
      this.terminate(
        fail('EPROTOCOL', `A reply line from ${this.opts.host} is longer than ${MAX_LINE} bytes`),
      );
  }

  /** A reply line; false when the connection was ended over it. */
  private onLine(line: string): boolean {
    const m = /^(\d{3})(?:([ -])(.*))?$/.exec(line);
    if (!m || line.length > MAX_LINE) {
      this.terminate(fail('EPROTOCOL', `Unreadable reply from ${this.opts.host}: ${line.slice(0, 200)}`));
      return false;
    }
    this.pendingLines.push(line);
    if (m[2] === '-') {
      if (this.pendingLines.length > MAX_REPLY_LINES) {
        this.terminate(
          fail('EPROTOCOL', `A reply from ${this.opts.host} has more than ${MAX_REPLY_LINES} lines`),
        );
        return false;
      }
      return true;
    }
    const lines = this.pendingLines.map((l) => l.slice(4));
    const reply: Reply = { code: Number(m[1]), text: this.pendingLines.join('\n'), lines };
    this.pendingLines = [];
    const waiter = this.waiters.shift();
    if (!waiter) {
      // Nothing was asked: a 421 closing an idle session, or a server (or someone between) talking
      // out of turn. Either way this connection's replies can no longer be matched to commands.
      this.terminate(
        reply.code === 421
          ? fromReply('ECONNECTION', 'idle session', reply)
          : fail('EPROTOCOL', `Unexpected reply from ${this.opts.host}: ${reply.text.slice(0, 200)}`),
      );
      return false;
    }
    waiter.resolve(reply);
    if (reply.code === 421) {
      // The server closes the session (RFC 5321 §3.8); commands pipelined behind the 421 will not
      // be answered, so they fail now (unsent, they go again on a fresh connection) rather than
      // at the socket timeout.
      this.terminate(
        fail('ECONNECTION', `${this.opts.host} closed the session (421) before answering`, {
          response: reply.text,
        }),
      );
      return false;
    }
    if (this.waiters.length === 0) this.socket.setTimeout(0);
    return true;
  }

  /** Ends the connection: every reply still awaited fails with `why`. */
  private terminate(why: SmtpFailure): void {
    this.isUsable = false;
    if (!this.closedWith) this.closedWith = why;
    for (const w of this.waiters.splice(0)) w.reject(why);
    this.socket.destroy();
    const cb = this.onClose;
    this.onClose = undefined;
    cb?.();
  }

  private reply(): Promise<Reply> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    this.socket.setTimeout(this.opts.socketTimeoutMs);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private write(data: string | Buffer): void {
    this.socket.write(data);
  }

  private async command(line: string): Promise<Reply> {
    const r = this.reply();
    this.write(`${line}\r\n`);
    return r;
  }

  private async handshake(): Promise<void> {
    const greetingTimer = setTimeout(
      () =>
        this.terminate(
          fail('ETIMEDOUT', `No greeting from ${this.opts.host} within ${this.opts.greetingTimeoutMs} ms`),
        ),
      this.opts.greetingTimeoutMs,
    );
    let greeting: Reply;
    try {
      greeting = await this.reply();
    } finally {
      clearTimeout(greetingTimer);
    }
    if (greeting.code !== 220) throw sessionRefusal('ECONNECTION', 'greeting', greeting);
    await this.hello();
    if (!this.isSecure && this.extensions.has('STARTTLS')) {
      const r = await this.command('STARTTLS');
      if (r.code !== 220) throw sessionRefusal('ETLS', 'STARTTLS', r);
      await this.upgrade();
      await this.hello();
    }
    if (this.opts.requireTLS && !this.isSecure)
      throw fail('ETLS', `${this.opts.host} does not offer STARTTLS and requireTLS is set`);
    if (this.opts.auth) await this.authenticate(this.opts.auth);
  }

  private async hello(): Promise<void> {
    const name = this.opts.name ?? defaultName();
    this.extensions.clear();
    let r = await this.command(`EHLO ${name}`);
    if (r.code >= 500) {
      r = await this.command(`HELO ${name}`);
      if (r.code !== 250) throw sessionRefusal('EPROTOCOL', 'HELO', r);
      return;
    }
    if (r.code !== 250) throw sessionRefusal('EPROTOCOL', 'EHLO', r);
    for (const line of r.lines.slice(1)) {
      const [keyword = '', ...rest] = line.trim().split(/\s+/);
      this.extensions.set(keyword.toUpperCase(), rest.join(' '));
    }
  }

  private async upgrade(): Promise<void> {
    // RFC 3207 §4.2: nothing the server sent before TLS may count after it. Bytes beyond the 220
    // (someone injecting replies in the clear) end the session.
    if (this.closedWith) throw this.closedWith;
    if (this.buffer.length > 0 || this.pendingLines.length > 0)
      throw fail('EPROTOCOL', `${this.opts.host} sent data after its 220 to STARTTLS`);
    this.decoder.end();
    const plain = this.socket as net.Socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('error');
    plain.removeAllListeners('close');
    plain.removeAllListeners('timeout');
    const secured = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({
        socket: plain,
        ...(net.isIP(this.opts.host) === 0 && { servername: this.opts.host }),
        ...this.opts.tls,
      });
      const timer = setTimeout(() => {
        s.destroy();
        reject(fail('ETIMEDOUT', 'TLS handshake timed out'));
      }, this.opts.greetingTimeoutMs);
      s.once('error', (err) => {
        clearTimeout(timer);
        s.destroy();
        reject(fail('ETLS', err.message));
      });
      s.once('secureConnect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(s);
      });
    });
    this.socket = secured;
    this.decoder = new StringDecoder('utf8');
    this.isSecure = true;
    this.attach(secured);
  }

  private async authenticate(auth: { user: string; pass: string }): Promise<void> {
    const methods = (this.extensions.get('AUTH') ?? '').toUpperCase().split(/\s+/);
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    const check = (r: Reply, expected: number) => {
      if (r.code !== expected) throw fromReply('EAUTH', 'AUTH', r); // classify.ts: EAUTH is temporary
    };
    if (methods.includes('PLAIN')) {
      check(await this.command(`AUTH PLAIN ${b64(`\0${auth.user}\0${auth.pass}`)}`), 235);
    } else if (methods.includes('LOGIN')) {
      check(await this.command('AUTH LOGIN'), 334);
      check(await this.command(b64(auth.user)), 334);
      check(await this.command(b64(auth.pass)), 235);
    } else {
      throw fail('EAUTH', `${this.opts.host} offers no AUTH method this client has (PLAIN, LOGIN)`);
    }
  }

  get offersPipelining(): boolean {
    return this.extensions.has('PIPELINING');
  }

  /** One transaction: MAIL FROM, RCPT TO, DATA, the message. Never rejects. */
  async send(envelope: { from: string; to: string }, raw: Buffer): Promise<SmtpResult> {
    const refuse = (message: string): SmtpResult => ({
      ok: false,
      error: fail('EMESSAGE', message),
      isUnsent: true,
    });
    if (ENVELOPE_UNSAFE.test(envelope.from) || ENVELOPE_UNSAFE.test(envelope.to))
      return refuse('An envelope address holds a character SMTP cannot carry');
    const size = Number(this.extensions.get('SIZE') ?? 0);
    if (size > 0 && raw.length > size)
      return refuse(
        `The message (${raw.length} bytes) is larger than ${this.opts.host} accepts (${size} bytes)`,
      );
    let params = '';
    if (!isAscii(raw) && this.extensions.has('8BITMIME')) params += ' BODY=8BITMIME';
    const isAsciiText = (s: string) => /^[\x20-\x7e]*$/.test(s);
    if (!isAsciiText(envelope.from) || !isAsciiText(envelope.to)) {
      if (!this.extensions.has('SMTPUTF8'))
        return refuse(`${this.opts.host} does not offer SMTPUTF8, which this address needs`);
      params += ' SMTPUTF8';
    }
    let isDataWritten = false;
    try {
      const mailCmd = `MAIL FROM:<${envelope.from}>${params}\r\n`;
      const rcptCmd = `RCPT TO:<${envelope.to}>\r\n`;
      let mail: Reply;
      let rcpt: Reply | null = null;
      let data: Reply | null = null;
      if (this.offersPipelining) {
        const replies = [this.reply(), this.reply(), this.reply()];
        this.write(`${mailCmd}${rcptCmd}DATA\r\n`);
        const [m, r, d] = await Promise.allSettled(replies);
        // A refusal read before the connection dropped (421 and close, say) is the answer.
        if (m!.status === 'rejected') throw m!.reason;
        mail = m!.value;
        if (mail.code === 250) {
          if (r!.status === 'rejected') throw r!.reason;
          rcpt = r!.value;
          if (rcpt.code === 250 || rcpt.code === 251) {
            if (d!.status === 'rejected') throw d!.reason;
            data = d!.value;
          } else if (d!.status === 'fulfilled') data = d!.value;
        }
      } else {
        const m = this.reply();
        this.write(mailCmd);
        mail = await m;
        if (mail.code === 250) {
          const r = this.reply();
          this.write(rcptCmd);
          rcpt = await r;
          if (rcpt.code === 250 || rcpt.code === 251) {
            const d = this.reply();
            this.write('DATA\r\n');
            data = await d;
          }
        }
      }
      let failure: SmtpFailure | null = null;
      if (mail.code !== 250) failure = fromReply('EENVELOPE', 'MAIL FROM', mail);
      else if (rcpt && rcpt.code !== 250 && rcpt.code !== 251)
        failure = fromReply('EENVELOPE', 'RCPT TO', rcpt);
      else if (data && data.code !== 354) failure = fromReply('EMESSAGE', 'DATA', data);
      if (data?.code === 354 && failure) {
        // A server that opened DATA without a recipient gets an empty message it delivers to no one.
        const r = this.reply();
        this.write(END_OF_DATA);
        await r.catch(() => undefined);
      }
      if (failure) {
        // The refusal is the answer even when the server closes the connection after it (some do
        // after a 5xx, without a 421): the empty message and RSET only ready the connection for
        // the next transaction, and a drop there must not turn a 550 into a retried ECONNECTION.
        if (this.isUsable) {
          const r = this.reply();
          this.write('RSET\r\n');
          await r.catch(() => undefined);
        }
        return { ok: false, error: failure, isUnsent: false };
      }
      const end = this.reply();
      // RFC 2920 §3.1: the next transaction's commands may follow the message at once; its
      // replies queue behind this one's. Corked, the message and those commands leave in one write.
      this.socket.cork();
      this.write(dataBytes(raw));
      isDataWritten = true;
      this.isAwaitingFinalReply = true;
      this.onDataWritten?.();
      this.socket.uncork();
      let done: Reply;
      try {
        done = await end;
      } finally {
        this.isAwaitingFinalReply = false;
      }
      if (done.code !== 250)
        return { ok: false, error: fromReply('EMESSAGE', 'DATA', done), isUnsent: false };
      return { ok: true, responseCode: done.code, response: done.text };
    } catch (err) {
      return { ok: false, error: err as SmtpFailure, isUnsent: !isDataWritten };
    }
  }

  /** QUIT, then close; never waits longer than a second for the server. */
  async quit(): Promise<void> {
    if (!this.isUsable) return this.destroy();
    this.isUsable = false;
    const r = this.reply().catch(() => undefined);
    this.write('QUIT\r\n');
    await Promise.race([r, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    this.destroy();
  }

  destroy(): void {
    this.terminate(fail('ECONNECTION', 'Connection closed by the client'));
  }
}
