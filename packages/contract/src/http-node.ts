// HTTP rules both Node servers (the core and the standalone wrapper) apply the same way. Node-only:
// the client never imports this module.
import http from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * A loopback address or name: localhost, *.localhost (RFC 6761), 127.0.0.0/8, ::1 (with or
 * without brackets).
 */
export function isLoopbackName(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** A Host header (name or address, optional port) that names this machine by loopback. */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return isLoopbackName(name);
}

/** Node keeps the first of several Host headers; RFC 9112 §3.2 asks for a 400. */
export function hostHeaderCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') n++;
  }
  return n;
}

/** The error code and message for a request Node's HTTP parser refused (clientError). */
export function parserRefusal(parserCode: string | undefined): {
  code: 'headers_too_large' | 'request_timeout' | 'invalid_request';
  message: string;
} {
  if (parserCode === 'HPE_HEADER_OVERFLOW')
    return { code: 'headers_too_large', message: 'The request headers are over 16 KiB.' };
  if (parserCode === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { code: 'request_timeout', message: 'The request did not arrive in time.' };
  return { code: 'invalid_request', message: 'Malformed HTTP request.' };
}

/**
 * Whether an error answer may still be written to a socket Node reports a client error on: not
 * when the client reset it, nor when a response to an earlier (pipelined) request is already on
 * its way — a raw answer written then would be read as that request's answer.
 */
export function canAnswerOnSocket(socket: Duplex, err: { code?: string }): boolean {
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  return err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent;
}

/**
 * An error in the envelope, written straight to a socket no request handler will answer
 * (parser errors, CONNECT), with its request id, then the connection closed. The client's unread
 * bytes are read and dropped for `lingerMs` first: closing with them unread resets the connection
 * and can destroy the answer before the client reads it.
 */
export function writeRawErrorResponse(
  socket: Duplex,
  answer: { status: number; code: string; message: string; requestId: string },
  lingerMs = 1000,
): void {
  const body = JSON.stringify({
    ok: false,
    error: { code: answer.code, message: answer.message, requestId: answer.requestId },
  });
  socket.end(
    `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${answer.requestId}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
  socket.resume();
  setTimeout(() => socket.destroy(), lingerMs).unref();
}
