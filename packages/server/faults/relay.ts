// The SMTP relay of the fault suite: a real smtp-server in the test process whose answer can be
// switched while workers deliver to it (250, 421 at greeting, 451 at RCPT TO, 451 after DATA).
// Every message taken with 250 is parsed with mailparser and recorded by its
// X-Mailsvc-Message-Id, with the worker that sent it (the domain of its VERP envelope sender:
// each worker of the suite runs with its own MAILSVC_BOUNCE_DOMAIN).
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export type RelayMode = 'accept' | 'greeting-421' | 'rcpt-451' | 'data-451';

/** The enhanced status code of each refusal, as the worker records it with the deferral. */
export const REFUSAL_CODES = { 'greeting-421': '4.3.2', 'rcpt-451': '4.7.1', 'data-451': '4.3.0' } as const;

export interface Delivery {
  messageId: string;
  to: string;
  /** The worker that sent it (its bounce domain's first label). */
  worker: string;
  at: number;
}

export interface Relay {
  url: string;
  mode: RelayMode;
  /** Every message the relay took (recorded when DATA is complete, before the 250 is written). */
  readonly deliveries: Delivery[];
  /** Refused attempts, by where they were refused. */
  readonly refusals: { greeting421: number; mailFrom421: number; rcpt451: number; data451: number };
  /** Messages taken in full from a worker whose 250 has not been written yet. */
  heldBy(worker: string): number;
  close(): Promise<void>;
}

interface SmtpError extends Error {
  responseCode: number;
}

const reply = (code: number, message: string): SmtpError =>
  Object.assign(new Error(message), { responseCode: code });

const workerOf = (session: SMTPServerSession): string => {
  const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  return from.split('@')[1]?.split('.')[0] ?? '';
};

/**
 * `latencyMs`: how long the relay takes before it answers 250 to the end of DATA. A worker killed
 * in that window never hears the 250 although the relay has the message: the crash case that
 * makes delivery at-least-once.
 */
export async function startRelay(opts: { latencyMs: number }): Promise<Relay> {
  const deliveries: Delivery[] = [];
  const refusals = { greeting421: 0, mailFrom421: 0, rcpt451: 0, data451: 0 };
  const held = new Map<string, number>();
  const state = { mode: 'accept' as RelayMode };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      if (state.mode !== 'greeting-421') return callback();
      refusals.greeting421++;
      callback(reply(421, `${REFUSAL_CODES['greeting-421']} Service not available, try again later`));
    },
    onMailFrom(_address, _session, callback) {
      // A pooled connection opened before the 421 period keeps its greeting: it is refused at its
      // next transaction, and the 421 closes it, so that the worker has to connect again.
      if (state.mode !== 'greeting-421') return callback();
      refusals.mailFrom421++;
      callback(reply(421, `${REFUSAL_CODES['greeting-421']} Service not available, closing the connection`));
    },
    onRcptTo(_address, _session, callback) {
      if (state.mode !== 'rcpt-451') return callback();
      refusals.rcpt451++;
      callback(reply(451, `${REFUSAL_CODES['rcpt-451']} Greylisted, try again later`));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      // A worker that dies in the middle of DATA: the stream is destroyed and never ends; the
      // message was not taken.
      stream.on('error', () => {});
      stream.on('end', async () => {
        if (state.mode === 'data-451') {
          refusals.data451++;
          return callback(reply(451, `${REFUSAL_CODES['data-451']} Queue full, try again later`));
        }
        const worker = workerOf(session);
        held.set(worker, (held.get(worker) ?? 0) + 1);
        const at = Date.now();
        const parsed = await simpleParser(Buffer.concat(chunks), {
          skipHtmlToText: true,
          skipTextToHtml: true,
          skipImageLinks: true,
          skipTextLinks: true,
        });
        deliveries.push({
          messageId: String(parsed.headers.get('x-mailsvc-message-id') ?? '(no X-Mailsvc-Message-Id)'),
          to: session.envelope.rcptTo.map((r) => r.address).join(','),
          worker,
          at,
        });
        setTimeout(() => {
          held.set(worker, (held.get(worker) ?? 1) - 1);
          callback();
        }, opts.latencyMs);
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    get mode() {
      return state.mode;
    },
    set mode(mode: RelayMode) {
      state.mode = mode;
    },
    deliveries,
    refusals,
    heldBy: (worker) => held.get(worker) ?? 0,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // smtp-server waits 30 s for open connections (pooled ones stay open): end them now.
      for (const c of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> })
        .connections) {
        c._socket.destroy();
      }
      await closed;
    },
  };
}
