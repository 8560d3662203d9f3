// A real SMTP server in-process (smtp-server), scripted per recipient: the local part of the
// address picks the answer. Received messages are parsed back with mailparser.
import type { AddressInfo } from 'node:net';
import { smtpTransport } from '@mailsvc/server/src/delivery/transports/smtp.js';
import { DeliveryWorker } from '@mailsvc/server/src/delivery/worker.js';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';

/** The answer to RCPT TO, except `data-soft`: RCPT is accepted, then the end of DATA gets 451 4.3.0. */
export type Script = 'ok' | 'soft' | 'unknown-user' | 'policy' | 'drop' | 'slow' | 'data-soft';

export interface Received {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  parsed: ParsedMail;
  isSecure: boolean;
}

export interface SmtpSink {
  url: string;
  port: number;
  received: Received[];
  /** How many RCPT TO commands each address got (every attempt, answered or not). */
  attempts: Map<string, number>;
  /** Set the answer for an address; `times` answers before falling back to `ok`. */
  script(address: string, answer: Script, times?: number): void;
  close(): Promise<void>;
}

interface SmtpError extends Error {
  responseCode?: number;
}

const fail = (code: number, message: string): SmtpError =>
  Object.assign(new Error(message), { responseCode: code });

export async function startSmtpSink(
  opts: { offerStartTls?: boolean; slowMs?: number; server?: Partial<SMTPServerOptions> } = {},
): Promise<SmtpSink> {
  const scripts = new Map<string, { answer: Script; times: number }>();
  const received: Received[] = [];
  const attempts = new Map<string, number>();
  const answerFor = (address: string): Script => {
    const s = scripts.get(address);
    if (!s || s.times <= 0) return 'ok';
    s.times--;
    return s.answer;
  };
  const server: SMTPServer = new SMTPServer({
    authOptional: true,
    disabledCommands: opts.offerStartTls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    logger: false,
    onMailFrom(_address, session, callback) {
      // A pooled connection carries many transactions: the answers are per transaction.
      (session as SMTPServerSession & { answers?: Script[] }).answers = [];
      callback();
    },
    onRcptTo(address, session, callback) {
      const to = address.address.toLowerCase();
      attempts.set(to, (attempts.get(to) ?? 0) + 1);
      const answer = answerFor(to);
      (session as SMTPServerSession & { answers?: Script[] }).answers = [
        ...((session as SMTPServerSession & { answers?: Script[] }).answers ?? []),
        answer,
      ];
      switch (answer) {
        case 'soft':
          return callback(fail(451, '4.7.1 Greylisted, try again later'));
        case 'unknown-user':
          return callback(fail(550, '5.1.1 The email account that you tried to reach does not exist'));
        case 'policy':
          return callback(fail(550, '5.7.1 Message rejected by policy'));
        case 'drop': {
          for (const c of (
            server as unknown as {
              connections: Set<{ session: SMTPServerSession; _socket: { destroy(): void } }>;
            }
          ).connections) {
            if (c.session?.id === session.id) c._socket.destroy();
          }
          return;
        }
        default:
          return callback();
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        const answers = (session as SMTPServerSession & { answers?: Script[] }).answers ?? [];
        const delay = answers.includes('slow') || opts.slowMs ? (opts.slowMs ?? 200) : 0;
        if (delay) await new Promise((r) => setTimeout(r, delay));
        if (answers.includes('data-soft')) return callback(fail(451, '4.3.0 Queue full, try again later'));
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
          isSecure: session.secure,
        });
        callback();
      });
    },
    ...opts.server,
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    attempts,
    script(address, answer, times = Number.POSITIVE_INFINITY) {
      scripts.set(address.toLowerCase(), { answer, times });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The harness's deps delivering to a fresh sink: an SMTP transport (one connection) and a worker
 * (4 slots, a 5-minute lease, a poll that never fires: tests call `worker.drain()`). `close()`
 * stops them in the order a sink needs: worker, pooled connections, then the sink.
 */
export async function startSinkWorker(deps: ConstructorParameters<typeof DeliveryWorker>[0]) {
  const sink = await startSmtpSink();
  const transport = smtpTransport({ url: sink.url, poolSize: 1 });
  const worker = new DeliveryWorker(deps, transport, { concurrency: 4, leaseMs: 300_000, pollMs: 3_600_000 });
  return {
    sink,
    transport,
    worker,
    async close() {
      await worker.stop();
      await transport.close();
      await sink.close();
    },
  };
}
