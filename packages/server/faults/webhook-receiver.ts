// The webhook receiver of the fault suite: a real node:http server in the test process on a fixed
// port of 127.0.0.1 that can be down (nothing listens: the connection is refused), answer 500, or
// take requests with 204, switched while the workers deliver to it. Unlike the testkit's receiver
// it is closed and opened again on the SAME port, since the endpoint's URL cannot follow it. Every
// request is kept in arrival order, with the answer actually written and whether it verified with
// the published `standardwebhooks` package on the real clock (the workers sign with it).
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

export type ReceiverMode = 'down' | 'refuse-500' | 'accept';

export interface Arrival {
  /** Its place in arrival order (the index in `arrivals`). */
  seq: number;
  /** The webhook-id header: the event's id. */
  id: string;
  body: string;
  at: number;
  /** The sender's end of the connection: tells which process sent it (see the scenario). */
  remotePort: number;
  /** What the receiver answered; `dropped`: the connection was gone before the answer (mode `down`). */
  answer: 204 | 500 | 'dropped';
  /** The verified payload, or undefined when it did not verify (`verifyError` says why). */
  event?: { type: string; timestamp: string; data: Record<string, unknown> };
  verifyError?: string;
}

export interface SwitchableReceiver {
  url: string;
  readonly mode: ReceiverMode;
  /** The endpoint's signing secret: set once the endpoint is created (before any event exists). */
  secret: string;
  readonly arrivals: Arrival[];
  /**
   * Called in the same turn of the event loop as a 204 is written, before the sender can have
   * read it: a worker killed here never records the delivery it made.
   */
  onAnswered?: ((a: Arrival) => void) | undefined;
  /** Resolves once the change is in effect: `down` has stopped listening and dropped every connection. */
  setMode(mode: ReceiverMode): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts down: the endpoint can be created on the port before anything listens there.
 * `latencyMs`: how long it takes before it answers, so that a killed worker has deliveries in
 * flight (the case that makes webhook delivery at-least-once).
 */
export function createSwitchableReceiver(opts: { port: number; latencyMs: number }): SwitchableReceiver {
  const arrivals: Arrival[] = [];
  const state = { mode: 'down' as ReceiverMode, secret: '' };
  let server: http.Server | undefined;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(req.headers[name] ?? '');
      const arrival: Arrival = {
        seq: arrivals.length,
        id: header('webhook-id'),
        body,
        at: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
        answer: 'dropped',
      };
      try {
        arrival.event = new Webhook(state.secret).verify(body, {
          'webhook-id': header('webhook-id'),
          'webhook-timestamp': header('webhook-timestamp'),
          'webhook-signature': header('webhook-signature'),
        }) as Arrival['event'];
      } catch (err) {
        arrival.verifyError = (err as Error).message;
      }
      arrivals.push(arrival);
      // The mode when the request arrived decides the answer, as a real receiver's state would.
      const status = state.mode === 'refuse-500' ? 500 : 204;
      setTimeout(() => {
        if (res.destroyed || req.socket.destroyed) return;
        arrival.answer = status;
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status === 500 ? 'failing on purpose (fault suite)' : '');
        if (status === 204) receiver.onAnswered?.(arrival);
      }, opts.latencyMs);
    });
  };

  async function open(): Promise<void> {
    if (server) return;
    const s = http.createServer(handle);
    s.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(opts.port, '127.0.0.1', () => {
        s.off('error', reject);
        resolve();
      });
    });
    server = s;
  }

  async function shut(): Promise<void> {
    const s = server;
    if (!s) return;
    server = undefined;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    // Keep-alive sockets of the workers' pools would keep a closed server reachable.
    s.closeAllConnections();
    await closed;
  }

  const receiver: SwitchableReceiver = {
    url: `http://127.0.0.1:${opts.port}/hooks`,
    get mode() {
      return state.mode;
    },
    get secret() {
      return state.secret;
    },
    set secret(secret: string) {
      state.secret = secret;
    },
    arrivals,
    async setMode(mode) {
      state.mode = mode;
      if (mode === 'down') await shut();
      else await open();
    },
    close: shut,
  };
  return receiver;
}
