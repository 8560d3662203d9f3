// Reading an SMTP server's replies (RFC 5321 §4.2): lines of a three-digit code, "-" between the
// lines of a multi-line reply and " " (or nothing) on its last; and the failures a session ends
// with, in the shape classify.ts reads.
import { StringDecoder } from 'node:string_decoder';

export interface Reply {
  code: number;
  /** The reply's lines joined with a newline, each with its code, as the server sent them. */
  text: string;
  /** The text of each line after the code (EHLO keywords). */
  lines: string[];
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

export const fail = (
  code: SmtpFailure['code'],
  message: string,
  extra: Partial<SmtpFailure> = {},
): SmtpFailure => ({
  code,
  message,
  ...extra,
});

export const fromReply = (code: SmtpFailure['code'], command: string, r: Reply): SmtpFailure =>
  fail(code, `${command} answered ${r.text}`, { command, responseCode: r.code, response: r.text });

/**
 * A refusal of the session (greeting, EHLO, STARTTLS) says nothing about the message: its
 * reply code is left out, so classify.ts treats it as temporary (the relay's configuration or
 * state), whatever the code, and the message waits for the relay instead of failing for good.
 */
export const sessionRefusal = (code: SmtpFailure['code'], command: string, r: Reply): SmtpFailure =>
  fail(code, `${command} answered ${r.text}`, { command, response: r.text });

const MAX_LINE = 4096;
const MAX_REPLY_LINES = 128;

/** Turns the bytes a server sends into replies; a line or reply too long, or unreadable, ends it. */
export class ReplyReader {
  private buffer = '';
  private decoder = new StringDecoder('utf8');
  private pendingLines: string[] = [];

  constructor(private readonly host: string) {}

  /**
   * Reads a chunk: `onReply` gets each complete reply and answers false when it ended the
   * connection (nothing more is read then). A failure is returned when the bytes cannot be read
   * as replies; the connection must end with it.
   */
  read(chunk: Buffer, onReply: (reply: Reply) => boolean): SmtpFailure | null {
    this.buffer += this.decoder.write(chunk);
    let at = this.buffer.indexOf('\n');
    while (at !== -1) {
      const line = this.buffer.slice(0, at).replace(/\r$/, '');
      this.buffer = this.buffer.slice(at + 1);
      const read = this.readLine(line);
      if ('failure' in read) return read.failure;
      if (read.reply && !onReply(read.reply)) return null;
      at = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > MAX_LINE)
      return fail('EPROTOCOL', `A reply line from ${this.host} is longer than ${MAX_LINE} bytes`);
    return null;
  }

  /** A reply line: the reply it completes, none yet, or why it cannot be read. */
  private readLine(line: string): { reply: Reply | null } | { failure: SmtpFailure } {
    const m = /^(\d{3})(?:([ -])(.*))?$/.exec(line);
    if (!m || line.length > MAX_LINE)
      return { failure: fail('EPROTOCOL', `Unreadable reply from ${this.host}: ${line.slice(0, 200)}`) };
    this.pendingLines.push(line);
    if (m[2] === '-') {
      if (this.pendingLines.length > MAX_REPLY_LINES)
        return {
          failure: fail('EPROTOCOL', `A reply from ${this.host} has more than ${MAX_REPLY_LINES} lines`),
        };
      return { reply: null };
    }
    const lines = this.pendingLines.map((l) => l.slice(4));
    const reply: Reply = { code: Number(m[1]), text: this.pendingLines.join('\n'), lines };
    this.pendingLines = [];
    return { reply };
  }

  /** Whether bytes beyond the last complete reply have arrived. */
  get hasUnread(): boolean {
    return this.buffer.length > 0 || this.pendingLines.length > 0;
  }

  /** Forgets what was read (before TLS starts: nothing sent in the clear may count after it). */
  restart(): void {
    this.decoder.end();
    this.decoder = new StringDecoder('utf8');
  }
}
