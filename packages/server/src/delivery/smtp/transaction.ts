// What one SMTP transaction writes and how its envelope replies are judged: the MAIL FROM
// parameters (BODY=8BITMIME when the message has 8-bit bytes, RFC 6152; SMTPUTF8 when an address
// is not ASCII, RFC 6531) or why the message cannot go at all, and the message as DATA sends it.
import { isAscii } from 'node:buffer';
import { toCrlf } from '../crlf.js';
import { fail, fromReply, type Reply, type SmtpFailure } from './smtp-reply.js';

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

const CRLF = Buffer.from('\r\n');
export const END_OF_DATA = Buffer.from('.\r\n');

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
const isAsciiText = (s: string) => /^[\x20-\x7e]*$/.test(s);

/**
 * The parameters of MAIL FROM for this message on a server offering `extensions`, or why it
 * cannot be sent there (refused before anything is written: EMESSAGE, unsent).
 */
export function mailParameters(
  extensions: ReadonlyMap<string, string>,
  host: string,
  envelope: { from: string; to: string },
  raw: Buffer,
): { ok: true; params: string } | { ok: false; refusal: string } {
  if (ENVELOPE_UNSAFE.test(envelope.from) || ENVELOPE_UNSAFE.test(envelope.to))
    return { ok: false, refusal: 'An envelope address holds a character SMTP cannot carry' };
  const size = Number(extensions.get('SIZE') ?? 0);
  if (size > 0 && raw.length > size)
    return {
      ok: false,
      refusal: `The message (${raw.length} bytes) is larger than ${host} accepts (${size} bytes)`,
    };
  let params = '';
  if (!isAscii(raw) && extensions.has('8BITMIME')) params += ' BODY=8BITMIME';
  if (!isAsciiText(envelope.from) || !isAsciiText(envelope.to)) {
    if (!extensions.has('SMTPUTF8'))
      return { ok: false, refusal: `${host} does not offer SMTPUTF8, which this address needs` };
    params += ' SMTPUTF8';
  }
  return { ok: true, params };
}

/** The replies to MAIL FROM, RCPT TO and DATA, as far as the server got. */
export interface EnvelopeReplies {
  mail: Reply;
  rcpt: Reply | null;
  data: Reply | null;
}

export const isRecipientAccepted = (rcpt: Reply) => rcpt.code === 250 || rcpt.code === 251;

/** The refusal among the envelope's replies, in the order they were asked; null when DATA may follow. */
export function envelopeFailure({ mail, rcpt, data }: EnvelopeReplies): SmtpFailure | null {
  if (mail.code !== 250) return fromReply('EENVELOPE', 'MAIL FROM', mail);
  if (rcpt && !isRecipientAccepted(rcpt)) return fromReply('EENVELOPE', 'RCPT TO', rcpt);
  if (data && data.code !== 354) return fromReply('EMESSAGE', 'DATA', data);
  return null;
}

export const refusedBeforeSending = (message: string): SmtpResult => ({
  ok: false,
  error: fail('EMESSAGE', message),
  isUnsent: true,
});
