// The SMTP client on refusals: 421, 4xx and 5xx at each step, dropped connections (re-sent once
// when the message was not written), and the review's findings: no duplicate, no reply injected
// before TLS counted after it, session refusals kept temporary.
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { classifySmtpError } from '../classify.js';
import {
  counts,
  envelope,
  expectFailure,
  idOf,
  message,
  pool,
  runCleanups,
  smtpError,
  startRaw,
  startSink,
  waitFor,
  within,
} from './smtp-test-servers.js';
import type { SmtpResult } from './transaction.js';

afterEach(runCleanups);

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
