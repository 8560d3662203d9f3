// The standalone runner: plain node:http around the router. Answers at /… and under
// /<project_id>/europe-west2/<function_name>/… (the emulator's address shape).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppCheckVerifier } from './app-check.js';
import { lastForwardedFor } from './client-ip.js';
import type { WrapperConfig } from './config.js';
import type { Forwarder } from './forward.js';
import { createWrapperLogger, type Logger } from './logger.js';
import { BODY_LIMIT, createRouter, type WrapperRouter } from './router.js';

export interface StartWrapperOptions {
  config: WrapperConfig;
  log?: Logger;
  /** Defaults to MAILSVC_WRAPPER_PORT / MAILSVC_WRAPPER_HOST. */
  port?: number;
  host?: string;
  forwarder?: Forwarder;
  verifyAppCheck?: AppCheckVerifier;
}

export interface RunningWrapper {
  url: string;
  port: number;
  router: WrapperRouter;
  close(): Promise<void>;
}

/** The client IP: the socket's, or with trustProxy the last X-Forwarded-For entry (set by our proxy). */
export function clientIp(req: http.IncomingMessage, trustProxy: boolean): string {
  return (
    (trustProxy ? lastForwardedFor(req.headers['x-forwarded-for']) : undefined) ??
    req.socket.remoteAddress ??
    'unknown'
  );
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      // Keep at most one byte over the limit: enough for the router to answer 413.
      if (size > BODY_LIMIT) return;
      size += c.length;
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).subarray(0, BODY_LIMIT + 1)));
    req.on('error', reject);
  });
}

export async function startWrapperServer(opts: StartWrapperOptions): Promise<RunningWrapper> {
  const { config } = opts;
  const log = opts.log ?? createWrapperLogger(config.LOG_LEVEL);
  const router = createRouter({
    config,
    log,
    ...(opts.forwarder && { forwarder: opts.forwarder }),
    ...(opts.verifyAppCheck && { verifyAppCheck: opts.verifyAppCheck }),
  });
  const server = http.createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const out = await router.handle({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        ip: clientIp(req, config.MAILSVC_WRAPPER_TRUST_PROXY),
      });
      res.writeHead(out.status, out.headers);
      res.end(out.body);
    } catch (err) {
      log.error({ err }, 'wrapper request failed');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({ ok: false, error: { code: 'internal', message: 'An unexpected error occurred.' } }),
      );
    }
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  const host = opts.host ?? config.MAILSVC_WRAPPER_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? config.MAILSVC_WRAPPER_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  return {
    url,
    port,
    router,
    close: () =>
      new Promise<void>((resolve) => {
        router.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
