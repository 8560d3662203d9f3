// How the SMTP client reads replies (multi-line, in pieces, unreadable), and its timeouts and
// refused connections.
import { afterEach, describe, expect, it } from 'vitest';
import { classifySmtpError } from '../classify.js';
import {
  bodyOf,
  closedPort,
  envelope,
  expectFailure,
  message,
  multiline,
  pool,
  runCleanups,
  startRaw,
  startSink,
} from './smtp-test-servers.js';

afterEach(runCleanups);

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
