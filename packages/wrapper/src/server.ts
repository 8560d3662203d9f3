// The standalone runner: plain node:http around the router. Answers at /… and under
// /<project_id>/europe-west2/<function_name>/… (the emulator's address shape).
//
// Every answer carries the error envelope (for errors) and X-Request-Id, also for requests Node's
// HTTP parser refuses before the router could see them (DESIGN.md §2): those are answered from the
// server's clientError event, straight onto the socket.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { newRequestId } from '@mailsvc/contract/http';
import {
  canAnswerOnSocket,
  hostHeaderCount,
  parserRefusal,
  writeRawErrorResponse,
} from '@mailsvc/contract/http-node';
import { type AppCheckVerifier, loadFirebaseAdmin } from './app-check.js';
import { lastForwardedFor } from './client-ip.js';
import { checkAnonymousAccess, type WrapperConfig } from './config.js';
import { type WrapperErrorCode, wrapperErrors } from './errors.js';
import type { Forwarder } from './forward.js';
import { createWrapperLogger, type Logger } from './logger.js';
import { BODY_LIMIT, createRouter, type WrapperRouter } from './router.js';

export interface ServerTimeouts {
  /** The whole header block must arrive within this (slowloris). Default 10 s. */
  headersMs?: number;
  /** The whole request, headers and body (at most 256 KiB), must arrive within this. Default 30 s. */
  requestMs?: number;
  /** An idle kept-alive connection is closed after this. Default 5 s. */
  keepAliveMs?: number;
}

const DEFAULT_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };
/** After a refusal, how long the client may keep sending before the socket is dropped. */
const REFUSAL_LINGER_MS = 1_000;

export interface StartWrapperOptions {
  config: WrapperConfig;
  log?: Logger;
  /** Defaults to MAILSVC_WRAPPER_PORT / MAILSVC_WRAPPER_HOST. */
  port?: number;
  host?: string;
  forwarder?: Forwarder;
  verifyAppCheck?: AppCheckVerifier;
  timeouts?: ServerTimeouts;
}

export interface RunningWrapper {
  url: string;
  port: number;
  router: WrapperRouter;
  server: http.Server;
  /**
   * Stops accepting, drops connections that have not handed a request to the router (including
   * clients still trickling headers or a body), lets sends already with the core finish (bounded
   * by MAILSVC_WRAPPER_TIMEOUT_MS), then closes everything.
   */
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
    req.on('close', () => {
      if (!req.complete) reject(new Error('the request was aborted'));
    });
  });
}

/** An error the server answers itself (outside the router), in the envelope. */
function writeError(
  res: http.ServerResponse,
  code: WrapperErrorCode,
  message: string,
  requestId: string,
  extra: Record<string, string> = {},
): void {
  const body = JSON.stringify({ ok: false, error: { code, message, requestId } });
  res.writeHead(wrapperErrors[code].status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(body);
}

/** What the server knows of its connections, for a graceful close. */
interface Connections {
  /**
   * Sockets whose request the router is handling (possibly waiting for the core); close() waits
   * for these and no others.
   */
  busy: Set<Socket>;
  sockets: Set<Socket>;
  /** Sockets already answered from clientError: the parser reports every later chunk again. */
  refused: WeakSet<Socket>;
  isClosing: boolean;
  onIdle: (() => void) | undefined;
}

interface Served {
  router: WrapperRouter;
  config: WrapperConfig;
  log: Logger;
  conns: Connections;
}

export async function startWrapperServer(opts: StartWrapperOptions): Promise<RunningWrapper> {
  const { config } = opts;
  const host = opts.host ?? config.MAILSVC_WRAPPER_HOST;
  // The host option can differ from the configured one, so the rule is applied to it here.
  checkAnonymousAccess(config, { runtime: 'standalone', host });
  // App Check's verifier is firebase-admin, which `npm install` leaves out: say so at start, not
  // at the first send.
  if (config.MAILSVC_REQUIRE_APP_CHECK && !opts.verifyAppCheck) await loadFirebaseAdmin();
  const log = opts.log ?? createWrapperLogger(config.LOG_LEVEL);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const router = createRouter({
    config,
    log,
    ...(opts.forwarder && { forwarder: opts.forwarder }),
    ...(opts.verifyAppCheck && { verifyAppCheck: opts.verifyAppCheck }),
  });
  const conns: Connections = {
    busy: new Set(),
    sockets: new Set(),
    refused: new WeakSet(),
    isClosing: false,
    onIdle: undefined,
  };
  const served: Served = { router, config, log, conns };

  const server = http.createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node checks the two timeouts on this interval; the default (30 s) would double them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
      // Checked in the handler instead, so the refusal carries the envelope.
      requireHostHeader: false,
    },
    (req, res) => serveRequest(served, req, res),
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.on('connection', (socket: Socket) => {
    conns.sockets.add(socket);
    socket.once('close', () => conns.sockets.delete(socket));
  });
  answerMalformedRequests(server, served);
  await listen(server, opts.port ?? config.MAILSVC_WRAPPER_PORT, host, router);
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  const close = () => closeGracefully(server, served);
  return { url, port, router, server, close };
}

/** One request: read its body, hand it to the router, write the router's answer. */
async function serveRequest(
  { router, config, log, conns }: Served,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const socket = req.socket;
  if (refuseHostHeaders(req, res, log)) return;
  // A body declared over the limit is not waited for: the router answers 413 at once (after
  // its earlier checks) and the connection closes with the body unread.
  const declared = Number(req.headers['content-length'] ?? 0);
  const isOversized = declared > BODY_LIMIT;
  try {
    const body = isOversized ? Buffer.alloc(BODY_LIMIT + 1) : await readBody(req);
    conns.busy.add(socket);
    const out = await router.handle({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
      ip: clientIp(req, config.MAILSVC_WRAPPER_TRUST_PROXY),
    });
    const headers: Record<string, string> = { ...out.headers };
    // A length instead of chunked encoding; a HEAD answer's body is empty but its length is not.
    if (out.status !== 204 && req.method !== 'HEAD')
      headers['Content-Length'] = String(Buffer.byteLength(out.body));
    if (conns.isClosing || isOversized) headers.Connection = 'close';
    res.writeHead(out.status, headers);
    res.end(out.body);
  } catch (err) {
    // The client went away mid-body, or the parser refused the rest (answered in clientError).
    if (conns.refused.has(socket) || socket.destroyed || res.headersSent) return;
    const requestId = newRequestId();
    log.error({ requestId, err }, 'wrapper request failed');
    writeError(res, 'internal', 'An unexpected error occurred.', requestId);
  } finally {
    conns.busy.delete(socket);
    if (conns.busy.size === 0) conns.onIdle?.();
  }
}

/** No Host header in HTTP/1.1, or two: refused 400 in the envelope. True when it answered. */
function refuseHostHeaders(req: http.IncomingMessage, res: http.ServerResponse, log: Logger): boolean {
  const hosts = hostHeaderCount(req.rawHeaders);
  if (!((req.httpVersion === '1.1' && hosts === 0) || hosts > 1)) return false;
  const requestId = newRequestId();
  log.info(
    {
      requestId,
      status: 400,
      code: 'invalid_request',
      reason: hosts ? 'two Host headers' : 'no Host header',
    },
    'request refused',
  );
  writeError(res, 'invalid_request', 'Malformed HTTP request.', requestId, { Connection: 'close' });
  return true;
}

/** Requests Node's HTTP parser refuses, and CONNECT: answered in the envelope on the socket. */
function answerMalformedRequests(server: http.Server, { log, conns }: Served): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (conns.refused.has(socket)) return;
    if (!canAnswerOnSocket(socket, err)) {
      socket.destroy();
      return;
    }
    const { code, message } = parserRefusal(err.code);
    // The parser's code only: its error may carry the raw bytes, which can hold credentials.
    refuseOnSocket(socket, code, message, { parserCode: err.code });
  });
  // CONNECT never reaches the request handler; without a listener Node drops the socket unanswered.
  server.on('connect', (_req: http.IncomingMessage, socket: Socket) =>
    refuseOnSocket(socket, 'method_not_allowed', 'CONNECT is not supported.', { method: 'CONNECT' }),
  );

  /** An error in the envelope, written straight to a socket the router never got a request for. */
  function refuseOnSocket(socket: Socket, code: WrapperErrorCode, message: string, logFields: object): void {
    conns.refused.add(socket);
    const requestId = newRequestId();
    const status = wrapperErrors[code].status;
    log.info({ requestId, status, code, ...logFields }, 'malformed request refused');
    writeRawErrorResponse(socket, { status, code, message, requestId }, REFUSAL_LINGER_MS);
  }
}

async function listen(server: http.Server, port: number, host: string, router: WrapperRouter): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (err) {
    // A busy port is reported, not fatal, in `mailsvc start`: leave no Redis client behind.
    await router.close();
    throw err;
  }
}

/** RunningWrapper.close(): see there. */
async function closeGracefully(server: http.Server, { router, config, conns }: Served): Promise<void> {
  conns.isClosing = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Nothing of these has reached the core: idle kept-alive connections, and clients still
  // sending headers or a body.
  for (const socket of conns.sockets) if (!conns.busy.has(socket)) socket.destroy();
  if (conns.busy.size > 0) {
    await new Promise<void>((resolve) => {
      conns.onIdle = resolve;
      setTimeout(resolve, config.MAILSVC_WRAPPER_TIMEOUT_MS + 1_000).unref();
    });
  }
  for (const socket of conns.sockets) socket.destroy();
  await closed;
  await router.close();
}
