// A pool of SMTP connections to one relay. Messages wait in one queue; each open connection
// takes the next one when its transaction ends, or, on a server that offers PIPELINING, as soon
// as its transaction has written the message (the next MAIL FROM follows the end of data without
// waiting for its reply, RFC 2920 §3.1: one round trip a message instead of two). A connection is
// opened when a message waits and fewer than `size` are open, closed after `maxMessages`
// transactions (then replaced), after the server's 421, or after `idleMs` without work.
import { SmtpConnection, type SmtpConnectionOptions } from './connection.js';
import type { SmtpFailure } from './smtp-reply.js';
import type { SmtpResult } from './transaction.js';

export interface SmtpPoolOptions extends SmtpConnectionOptions {
  size: number;
  maxMessages: number;
  idleMs: number;
}

interface Job {
  envelope: { from: string; to: string };
  raw: Buffer;
  resolve(r: SmtpResult): void;
  /** Lower goes first (the queue's priority: security, transactional, notification, bulk). */
  priority: number;
  /** Sent once more on a fresh connection after its connection dropped. */
  isRequeued: boolean;
}

export class SmtpPool {
  private readonly queue: Job[] = [];
  private readonly idle: SmtpConnection[] = [];
  private readonly idleTimers = new Map<SmtpConnection, NodeJS.Timeout>();
  private readonly open = new Set<SmtpConnection>();
  /** Connections whose one transaction has written its message: they can take the next now. */
  private readonly ready = new Set<SmtpConnection>();
  private opening = 0;
  private isClosed = false;

  constructor(private readonly opts: SmtpPoolOptions) {}

  /**
   * Sends one message on the next free connection. Never rejects. Waiting messages go out in
   * `priority` order (lower first; first come, first served within one), so a login code claimed
   * behind a batch of notifications does not wait for all of them.
   */
  send(envelope: { from: string; to: string }, raw: Buffer, priority = 0): Promise<SmtpResult> {
    if (this.isClosed)
      return Promise.resolve({
        ok: false,
        error: { code: 'ECONNECTION', message: 'The SMTP pool is closed' },
        isUnsent: true,
      });
    return new Promise((resolve) => {
      const job: Job = { envelope, raw, resolve, priority, isRequeued: false };
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.priority > priority) at--;
      this.queue.splice(at, 0, job);
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const conn = this.takeIdle() ?? this.takeReady();
      if (conn) {
        this.run(conn, this.queue.shift()!);
        continue;
      }
      // Open as many connections as there are waiting messages, up to the pool's size.
      if (this.open.size + this.opening < this.opts.size && this.opening < this.queue.length) {
        this.connect();
        continue;
      }
      return;
    }
  }

  private takeIdle(): SmtpConnection | undefined {
    for (let conn = this.idle.pop(); conn; conn = this.idle.pop()) {
      this.ready.delete(conn);
      clearTimeout(this.idleTimers.get(conn));
      this.idleTimers.delete(conn);
      if (conn.isUsable) return conn;
      this.open.delete(conn);
    }
    return undefined;
  }

  private takeReady(): SmtpConnection | undefined {
    for (const conn of this.ready) {
      this.ready.delete(conn);
      if (conn.isUsable && conn.active === 1 && conn.isAwaitingFinalReply && this.hasRoom(conn)) return conn;
    }
    return undefined;
  }

  /** Whether the connection may start another transaction before it is replaced. */
  private hasRoom(conn: SmtpConnection): boolean {
    return conn.started < this.opts.maxMessages;
  }

  private connect(): void {
    this.opening++;
    SmtpConnection.open(this.opts).then(
      (conn) => {
        this.opening--;
        if (this.isClosed) return void conn.quit();
        this.open.add(conn);
        conn.onClose = () => this.forget(conn);
        conn.onDataWritten = () => {
          if (conn.offersPipelining && conn.active === 1) {
            this.ready.add(conn);
            this.pump();
          }
        };
        this.release(conn);
      },
      (error: SmtpFailure) => {
        this.opening--;
        // The relay is unreachable or refuses the session: the message first in line fails (the
        // worker retries it with backoff); the others try their own connection.
        const job = this.queue.shift();
        job?.resolve({ ok: false, error, isUnsent: true });
        this.pump();
      },
    );
  }

  private run(conn: SmtpConnection, job: Job): void {
    conn.active++;
    conn.started++;
    conn.send(job.envelope, job.raw).then((result) => {
      conn.active--;
      if (
        !result.ok &&
        result.error.code === 'ECONNECTION' &&
        result.isUnsent &&
        !result.error.responseCode &&
        !job.isRequeued &&
        !this.isClosed
      ) {
        // The connection dropped before the message was written (a pooled connection the relay
        // had closed meanwhile, say): once more on a fresh one. Not once it was written: the relay
        // may have queued it before the drop, and a second copy now would be a duplicate; the
        // worker's retry decides then, with its backoff, so every attempt is recorded. Not after
        // close(): nothing would send it, and the caller would wait for it forever.
        job.isRequeued = true;
        this.queue.unshift(job);
      } else {
        job.resolve(result);
      }
      this.release(conn);
    });
  }

  /** A connection back from a transaction or just opened: the next message, or idle. */
  private release(conn: SmtpConnection): void {
    this.ready.delete(conn);
    if (conn.active > 0) {
      // its other transaction still runs: it says when it has written its message
      if (!conn.isUsable) this.forget(conn);
      this.pump();
      return;
    }
    if (!conn.isUsable || this.isClosed || !this.hasRoom(conn)) {
      this.forget(conn);
      void conn.quit();
    } else {
      this.idle.push(conn);
      this.idleTimers.set(
        conn,
        setTimeout(() => {
          this.forget(conn);
          void conn.quit();
        }, this.opts.idleMs).unref(),
      );
    }
    this.pump();
  }

  private forget(conn: SmtpConnection): void {
    this.open.delete(conn);
    this.ready.delete(conn);
    clearTimeout(this.idleTimers.get(conn));
    this.idleTimers.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i !== -1) this.idle.splice(i, 1);
  }

  /** Open connections (tests). */
  get size(): number {
    return this.open.size;
  }

  /** Fails what still waits and says QUIT on idle connections; busy ones quit when their transaction ends. */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const job of this.queue.splice(0))
      job.resolve({
        ok: false,
        error: { code: 'ECONNECTION', message: 'The SMTP pool was closed' },
        isUnsent: true,
      });
    const idle = this.idle.splice(0);
    for (const c of idle) this.forget(c);
    await Promise.all(idle.map((c) => c.quit()));
  }
}
