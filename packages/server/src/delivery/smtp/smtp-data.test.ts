// The SMTP client's message: DATA's dot-stuffing and line ends (dataBytes), 8BITMIME, SIZE, and
// the envelope's SMTPUTF8 and the characters it cannot carry.
import { afterEach, describe, expect, it } from 'vitest';
import { classifySmtpError } from '../classify.js';
import {
  bodyOf,
  envelope,
  expectFailure,
  FROM,
  message,
  pool,
  runCleanups,
  startRaw,
  startSink,
  TO,
} from './smtp-test-servers.js';
import { dataBytes } from './transaction.js';

afterEach(runCleanups);

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
