// HTTP over a raw socket, for requests fetch and app.inject cannot make (malformed, trickled,
// pipelined): the bytes are written as given and the answer is parsed by hand.
import net from 'node:net';

export interface RawAnswer {
  /** 0 when nothing parseable arrived. */
  status: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: string;
  /** The raw bytes received (for a failure report). */
  text: string;
}

/** Parses the first complete non-1xx response in `buf`; null while incomplete. */
function parseResponse(buf: Buffer, isClosed: boolean): RawAnswer | null {
  let at = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', at);
    if (end < 0) return isClosed ? emptyAnswer(buf) : null;
    const head = buf.subarray(at, end).toString('latin1');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      at = bodyStart;
      continue;
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      if (buf.length - bodyStart < Number(length)) return isClosed ? emptyAnswer(buf) : null;
      const body = buf.subarray(bodyStart, bodyStart + Number(length)).toString('utf8');
      return { status, headers, body, text: buf.toString('latin1') };
    }
    if (!isClosed) return null;
    return { status, headers, body: buf.subarray(bodyStart).toString('utf8'), text: buf.toString('latin1') };
  }
}

const emptyAnswer = (buf: Buffer): RawAnswer => ({
  status: 0,
  headers: {},
  body: '',
  text: buf.toString('latin1'),
});

/** Writes the chunks to a new connection and reads the first answer (or what arrived by the deadline). */
export function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  deadlineMs = 8000,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let isDone = false;
    const finish = (answer: RawAnswer) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish(parseResponse(received, true) ?? emptyAnswer(received)),
      deadlineMs,
    );
    socket.on('error', () => {});
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const answer = parseResponse(received, false);
      if (answer) finish(answer);
    });
    socket.on('close', () => finish(parseResponse(received, true) ?? emptyAnswer(received)));
    socket.on('connect', () => {
      for (const c of chunks) if (!socket.destroyed) socket.write(c);
    });
  });
}

/**
 * Writes the chunks to a new connection (`gapMs` apart: a trickled request) and reads until the
 * server closes it; rejects when it has not closed it by the deadline. The answer is everything
 * received, read as one response: what a server that refuses and hangs up sends.
 */
export function rawUntilClose(
  port: number,
  chunks: string | (string | Buffer)[],
  opts: { gapMs?: number; deadlineMs?: number } = {},
): Promise<RawAnswer> {
  const { gapMs = 0, deadlineMs = 15_000 } = opts;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      const text = JSON.stringify(Buffer.concat(received).toString());
      reject(new Error(`the server did not close the connection within ${deadlineMs} ms; got ${text}`));
    }, deadlineMs);
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), text });
    });
    socket.on('connect', async () => {
      for (const c of Array.isArray(chunks) ? chunks : [chunks]) {
        if (socket.destroyed) return;
        socket.write(c);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}
