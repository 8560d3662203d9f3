// An HTTP proxy in front of a real server that can fail a request the way networks and load
// balancers do: answer 503 without forwarding, or forward it and then drop the connection
// before the answer reaches the client (the server did the work; the client never heard).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'pass' | 'unavailable' | 'drop-after-forwarding';

export interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
  fault: Fault;
}

export interface HttpFaultProxy {
  url: string;
  /** Faults for the next requests, in order; afterwards requests pass. */
  plan(...faults: Fault[]): void;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startHttpFaultProxy(target: string): Promise<HttpFaultProxy> {
  const faults: Fault[] = [];
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const fault = faults.shift() ?? 'pass';
      const key = req.headers['idempotency-key'];
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        idempotencyKey: typeof key === 'string' ? key : undefined,
        body,
        fault,
      });
      if (fault === 'unavailable') {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(
          JSON.stringify({
            ok: false,
            error: {
              code: 'service_unavailable',
              message: 'The service is restarting.',
              requestId: 'req_01M81C1XJB7Y4KHB01G4B1P0M5',
            },
          }),
        );
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
      }
      try {
        const upstream = await fetch(`${target}${req.url}`, {
          method: req.method,
          headers,
          ...(req.method !== 'GET' && req.method !== 'HEAD' && { body }),
        });
        const text = await upstream.text();
        if (fault === 'drop-after-forwarding') {
          req.socket.destroy();
          return;
        }
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (!['content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) out[k] = v;
        });
        res.writeHead(upstream.status, out);
        res.end(text);
      } catch {
        req.socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    plan: (...f) => faults.push(...f),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
