// One SMTP client connection (RFC 5321) for the worker's hot path: greeting, EHLO (HELO when
// refused), STARTTLS (RFC 3207), AUTH PLAIN/LOGIN (RFC 4954), then transactions, each written as
// MAIL FROM + RCPT TO + DATA in one write when the server offers PIPELINING (RFC 2920) and the
// dot-stuffed message plus the end of data in a second: two round trips a message instead of four.
// BODY=8BITMIME (RFC 6152) when the message has 8-bit bytes, SMTPUTF8 (RFC 6531) when an address
// is not ASCII. Written here rather than with nodemailer's SMTPConnection because that one streams
// each message through transforms and waits for every reply: 3,200 messages/s into the bench's
// sink against 9,500 with this shape (bench/RESULTS.md, delivery). Replies are read by
// smtp-reply.ts; what a transaction writes, and how its envelope replies are judged, is transaction.ts.
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import { fail, fromReply, type Reply, ReplyReader, type SmtpFailure, sessionRefusal } from './smtp-reply.js';
import {
  dataBytes,
  END_OF_DATA,
  type EnvelopeReplies,
  envelopeFailure,
  isRecipientAccepted,
  mailParameters,
  refusedBeforeSending,
  type SmtpResult,
} from './transaction.js';

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

interface Waiter {
  resolve(r: Reply): void;
  reject(e: SmtpFailure): void;
}

function defaultName(): string {
  const host = os.hostname();
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) ? host : '[127.0.0.1]';
}

export class SmtpConnection {
  private socket: net.Socket | tls.TLSSocket;
  private readonly reader: ReplyReader;
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
    this.reader = new ReplyReader(opts.host);
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
    const failure = this.reader.read(chunk, (reply) => this.onReply(reply));
    if (failure) this.terminate(failure);
  }

  /** A reply, to the command that waits for it; false when the connection was ended over it. */
  private onReply(reply: Reply): boolean {
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
    if (this.reader.hasUnread)
      throw fail('EPROTOCOL', `${this.opts.host} sent data after its 220 to STARTTLS`);
    this.reader.restart();
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
    const checked = mailParameters(this.extensions, this.opts.host, envelope, raw);
    if (!checked.ok) return refusedBeforeSending(checked.refusal);
    let isDataWritten = false;
    try {
      const commands = {
        mail: `MAIL FROM:<${envelope.from}>${checked.params}`,
        rcpt: `RCPT TO:<${envelope.to}>`,
      };
      const replies = this.offersPipelining
        ? await this.pipelinedEnvelope(commands)
        : await this.steppedEnvelope(commands);
      const failure = envelopeFailure(replies);
      if (failure) return await this.endRefused(failure, replies.data);
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

  /** MAIL FROM, RCPT TO and DATA in one write (PIPELINING); their replies as far as they count. */
  private async pipelinedEnvelope(commands: { mail: string; rcpt: string }): Promise<EnvelopeReplies> {
    const replies = [this.reply(), this.reply(), this.reply()];
    this.write(`${commands.mail}\r\n${commands.rcpt}\r\nDATA\r\n`);
    const [m, r, d] = await Promise.allSettled(replies);
    // A refusal read before the connection dropped (421 and close, say) is the answer.
    if (m!.status === 'rejected') throw m!.reason;
    const mail = m!.value;
    if (mail.code !== 250) return { mail, rcpt: null, data: null };
    if (r!.status === 'rejected') throw r!.reason;
    const rcpt = r!.value;
    if (isRecipientAccepted(rcpt)) {
      if (d!.status === 'rejected') throw d!.reason;
      return { mail, rcpt, data: d!.value };
    }
    return { mail, rcpt, data: d!.status === 'fulfilled' ? d!.value : null };
  }

  /** MAIL FROM, then RCPT TO, then DATA, each after the reply before it. */
  private async steppedEnvelope(commands: { mail: string; rcpt: string }): Promise<EnvelopeReplies> {
    const mail = await this.command(commands.mail);
    if (mail.code !== 250) return { mail, rcpt: null, data: null };
    const rcpt = await this.command(commands.rcpt);
    if (!isRecipientAccepted(rcpt)) return { mail, rcpt, data: null };
    return { mail, rcpt, data: await this.command('DATA') };
  }

  /** Readies the connection for the next transaction after a refused envelope; answers the refusal. */
  private async endRefused(failure: SmtpFailure, data: Reply | null): Promise<SmtpResult> {
    if (data?.code === 354) {
      // A server that opened DATA without a recipient gets an empty message it delivers to no one.
      const r = this.reply();
      this.write(END_OF_DATA);
      await r.catch(() => undefined);
    }
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
