// Delivery to a relay over SMTP with our pooled, pipelining client (delivery/smtp/). STARTTLS is
// used whenever the relay offers it (add ?requireTLS=true to the URL to insist); smtps:// is
// implicit TLS; user and password in the URL authenticate with AUTH PLAIN or LOGIN.
import type tls from 'node:tls';
import { classifySmtpError } from '../classify.js';
import { SmtpPool } from '../smtp/pool.js';
import type { DeliveryOutcome, OutgoingMessage, Transport } from './transport.js';

export interface SmtpTransportOptions {
  url: string;
  poolSize: number;
  /** Tests: TLS settings for a relay with a self-signed certificate. */
  tls?: tls.ConnectionOptions;
  /** Tests: shorter waits. */
  timeouts?: { connectionMs?: number; greetingMs?: number; socketMs?: number };
}

export function smtpTransport(opts: SmtpTransportOptions): Transport {
  const url = new URL(opts.url);
  const secure = url.protocol === 'smtps:';
  const flag = (name: string) => /^(1|true|yes)$/i.test(url.searchParams.get(name) ?? '');
  const pool = new SmtpPool({
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTLS: flag('requireTLS'),
    ...(url.username && {
      auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    }),
    ...(opts.tls && { tls: opts.tls }),
    ...(url.searchParams.get('name') && { name: url.searchParams.get('name')! }),
    size: opts.poolSize,
    maxMessages: 1000,
    idleMs: 30_000,
    // Bounded well below the worker's lease, so an attempt ends before another worker may
    // take the message over.
    connectionTimeoutMs: opts.timeouts?.connectionMs ?? 30_000,
    greetingTimeoutMs: opts.timeouts?.greetingMs ?? 30_000,
    socketTimeoutMs: opts.timeouts?.socketMs ?? 60_000,
  });
  return {
    name: 'smtp',
    async send(message: OutgoingMessage): Promise<DeliveryOutcome> {
      const result = await pool.send(message.envelope, message.raw, message.priority);
      if (result.ok)
        return { kind: 'sent', smtpCode: result.responseCode, response: result.response.slice(0, 500) };
      return classifySmtpError(result.error);
    },
    async close() {
      await pool.close();
    },
  };
}
