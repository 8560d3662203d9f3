// The SMTP client's pool: connection reuse, pipelining the next transaction after the end of data,
// maxMessages, close, and waiting messages in priority order.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Answer,
  counts,
  envelope,
  expectFailure,
  message,
  pool,
  runCleanups,
  type Sink,
  sleep,
  startRaw,
  startSink,
  waitFor,
  within,
} from './smtp-test-servers.js';

afterEach(runCleanups);

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
