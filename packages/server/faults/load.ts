// The client of the fault suite: a steady stream of POST /v1/send, each send with its own
// recipient and Idempotency-Key, retried with the SAME key and body after a network error or a
// 5xx until it is answered 200, as an application that trusts "accepted means delivered" would.
import http from 'node:http';

export interface Send {
  key: string;
  to: string;
  body: string;
  /** Every messageId this send was answered with (the retries included): one is right. */
  messageIds: Set<string>;
  attempts: number;
  /** The 200 was a replay (`idempotent: true`): an earlier attempt had been accepted unanswered. */
  wasReplayed: boolean;
  outcome: 'pending' | 'accepted' | 'refused' | 'gave-up';
  lastError?: string;
}

export interface LoadOptions {
  port: number;
  apiKey: string;
  scenario: string;
  ratePerSecond: number;
  concurrency: number;
}

interface Answer {
  status?: number;
  body?: { ok?: boolean; messageId?: string; idempotent?: boolean; error?: { code?: string } };
  error?: string;
  retryAfterSeconds?: number;
}

const REQUEST_TIMEOUT_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SendLoad {
  readonly sends: Send[] = [];
  /** Failed attempts by kind: `503 service_unavailable`, `ECONNREFUSED`, … */
  readonly failures = new Map<string, number>();
  /** When each 200 arrived. */
  readonly acceptedAt: number[] = [];
  private readonly agent: http.Agent;
  private next = 0;
  private startedAt = 0;
  private isStopping = false;
  private giveUpAt = Number.POSITIVE_INFINITY;
  private loops: Promise<void>[] = [];

  constructor(private readonly opts: LoadOptions) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  }

  start(): void {
    this.startedAt = Date.now();
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop());
  }

  /** Stops offering new sends and waits for every send to end; pending ones give up after `giveUpAfterMs`. */
  async finish(giveUpAfterMs: number): Promise<void> {
    this.isStopping = true;
    this.giveUpAt = Date.now() + giveUpAfterMs;
    await Promise.all(this.loops);
  }

  /** Sends a send's request again (same key, same body) and records the answer. */
  async replay(send: Send): Promise<Answer> {
    // A kept-alive socket the server closes just as it is reused answers ECONNRESET: a client
    // sends the same request (same key) again after a network error, as the load itself does.
    let answer = await this.post(send);
    for (let i = 0; i < 3 && answer.error !== undefined; i++) {
      await sleep(100);
      answer = await this.post(send);
    }
    if (answer.status === 200 && answer.body?.messageId) send.messageIds.add(answer.body.messageId);
    return answer;
  }

  close(): void {
    this.agent.destroy();
  }

  /** The first 200 that arrived at or after `t`, in ms after `t`; undefined when none did. */
  firstAcceptedAfter(t: number): number | undefined {
    let first: number | undefined;
    for (const at of this.acceptedAt) if (at >= t && (first === undefined || at < first)) first = at;
    return first === undefined ? undefined : first - t;
  }

  get retries(): number {
    return this.sends.reduce((n, s) => n + s.attempts - 1, 0);
  }

  private async loop(): Promise<void> {
    while (!this.isStopping) {
      const n = this.next++;
      const wait = this.startedAt + (n * 1000) / this.opts.ratePerSecond - Date.now();
      if (wait > 0) await sleep(wait);
      if (this.isStopping) return;
      await this.send(n);
    }
  }

  private async send(n: number): Promise<void> {
    const key = `f-${this.opts.scenario}-${n}`;
    const to = `${key}@example.com`;
    const send: Send = {
      key,
      to,
      body: JSON.stringify({ templateId: 'login-code', to, data: { code: '123456' } }),
      messageIds: new Set(),
      attempts: 0,
      wasReplayed: false,
      outcome: 'pending',
    };
    this.sends.push(send);
    for (;;) {
      send.attempts++;
      const answer = await this.post(send);
      if (answer.status === 200 && answer.body?.messageId) {
        send.messageIds.add(answer.body.messageId);
        send.wasReplayed = answer.body.idempotent === true;
        send.outcome = 'accepted';
        this.acceptedAt.push(Date.now());
        return;
      }
      const kind = answer.error ?? `${answer.status} ${answer.body?.error?.code ?? '(no error code)'}`;
      this.failures.set(kind, (this.failures.get(kind) ?? 0) + 1);
      send.lastError = kind;
      // 429 is "later", not "no": a client waits Retry-After and sends the same request again.
      if (answer.status !== undefined && answer.status < 500 && answer.status !== 429) {
        send.outcome = 'refused';
        return;
      }
      if (Date.now() > this.giveUpAt) {
        send.outcome = 'gave-up';
        return;
      }
      const backoff = Math.min(500, 50 * 2 ** Math.min(send.attempts - 1, 4));
      await sleep(Math.max(backoff, (answer.retryAfterSeconds ?? 0) * 1000) * (0.5 + Math.random()));
    }
  }

  private post(send: Send): Promise<Answer> {
    return new Promise((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.opts.port,
          method: 'POST',
          path: '/v1/send',
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.opts.apiKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(send.body),
            'idempotency-key': send.key,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
          res.on('end', () => {
            let body: Answer['body'];
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              body = undefined;
            }
            const retryAfter = Number(res.headers['retry-after']);
            resolve({
              status: res.statusCode ?? 0,
              body,
              ...(Number.isFinite(retryAfter) && { retryAfterSeconds: retryAfter }),
            });
          });
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })),
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      req.end(send.body);
    });
  }
}
