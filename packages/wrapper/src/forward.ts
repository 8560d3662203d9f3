// POST /v1/send on the core, over kept-alive connections, bounded by a timeout.
import http from 'node:http';
import https from 'node:https';
import type { Envelope } from './envelope.js';

/** The core's send body: the envelope with the route's templateId; the key travels as a header. */
export type CoreSendBody = Omit<Envelope, 'idempotencyKey'> & { templateId: string };

export interface CoreReply {
  status: number;
  /** Parsed JSON, or undefined when the body was not JSON. */
  body: unknown;
  retryAfter?: string;
  requestId?: string;
}

/** The core could not be asked: a network error, a timeout or an unreadable answer. */
export class CoreUnreachableError extends Error {
  constructor(
    readonly reason: 'timeout' | 'network' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

export interface Forwarder {
  send(body: CoreSendBody, idempotencyKey?: string): Promise<CoreReply>;
  close(): void;
}

const MAX_REPLY_BYTES = 1024 * 1024;

export function createForwarder(opts: { coreUrl: string; apiKey: string; timeoutMs: number }): Forwarder {
  const url = new URL('v1/send', `${opts.coreUrl.replace(/\/+$/, '')}/`);
  const isHttps = url.protocol === 'https:';
  const agent = isHttps
    ? new https.Agent({ keepAlive: true, maxSockets: 64 })
    : new http.Agent({ keepAlive: true, maxSockets: 64 });
  const request = isHttps ? https.request : http.request;
  const authorization = `Bearer ${opts.apiKey}`;

  return {
    async send(body, idempotencyKey) {
      try {
        return await attempt(body, idempotencyKey);
      } catch (err) {
        // A kept-alive socket the core closed while idle fails at once with ECONNRESET, before
        // the core read anything: retry once on a new connection (Node's documented pattern).
        if (err instanceof StaleSocketError) return attempt(body, idempotencyKey);
        throw err;
      }
    },
    close() {
      agent.destroy();
    },
  };

  function attempt(body: CoreSendBody, idempotencyKey: string | undefined): Promise<CoreReply> {
    const payload = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = {
      authorization,
      'content-type': 'application/json',
      'content-length': payload.length,
      'user-agent': 'mailsvc-wrapper/0.1.0',
      accept: 'application/json',
    };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return new Promise<CoreReply>((resolve, reject) => {
      const signal = AbortSignal.timeout(opts.timeoutMs);
      const req = request(url, { method: 'POST', agent, headers, signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_REPLY_BYTES) {
            req.destroy(new CoreUnreachableError('too_large', 'the core answer is over 1 MiB'));
            return;
          }
          chunks.push(c);
        });
        res.on('error', (err) => reject(classify(err, signal)));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = undefined;
          }
          const header = (name: string) => {
            const v = res.headers[name];
            return Array.isArray(v) ? v[0] : v;
          };
          const retryAfter = header('retry-after');
          const requestId = header('x-request-id');
          resolve({
            status: res.statusCode ?? 0,
            body: parsed,
            ...(retryAfter !== undefined && { retryAfter }),
            ...(requestId !== undefined && { requestId }),
          });
        });
      });
      req.on('error', (err) => {
        const isStale =
          req.reusedSocket && (err as { code?: string }).code === 'ECONNRESET' && !signal.aborted;
        reject(isStale ? new StaleSocketError() : classify(err, signal));
      });
      req.end(payload);
    });
  }
}

class StaleSocketError extends Error {}

function classify(err: Error, signal: AbortSignal): CoreUnreachableError {
  if (err instanceof CoreUnreachableError) return err;
  if (signal.aborted) return new CoreUnreachableError('timeout', 'the core did not answer in time');
  return new CoreUnreachableError(
    'network',
    `the core could not be reached (${(err as { code?: string }).code ?? err.message})`,
  );
}
