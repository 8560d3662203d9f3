// Delivery to a relay over SMTP with nodemailer's pooled transport. STARTTLS is used whenever
// the relay offers it (add ?requireTLS=true to the URL to insist); smtps:// is implicit TLS.
import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { classifySmtpError } from '../classify.js';
import type { DeliveryOutcome, OutgoingMessage, Transport } from './transport.js';

export interface SmtpTransportOptions {
  url: string;
  poolSize: number;
  /** Tests: TLS settings for a relay with a self-signed certificate. */
  tls?: SMTPPool.Options['tls'];
}

export function smtpTransport(opts: SmtpTransportOptions): Transport {
  const transporter = nodemailer.createTransport({
    url: opts.url,
    pool: true,
    maxConnections: opts.poolSize,
    maxMessages: 1000,
    // One immediate re-send on a fresh connection when a pooled one turns out to be closed;
    // beyond that the worker's backoff decides, so every attempt is recorded.
    maxRequeues: 1,
    // Bounded well below the worker's lease, so an attempt ends before another worker may
    // take the message over.
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
    ...(opts.tls && { tls: opts.tls }),
  } as SMTPPool.Options);
  return {
    name: 'smtp',
    async send(message: OutgoingMessage): Promise<DeliveryOutcome> {
      try {
        const info = await transporter.sendMail({ envelope: message.envelope, raw: message.raw });
        return { kind: 'sent', smtpCode: 250, response: String(info.response ?? '250 OK').slice(0, 500) };
      } catch (err) {
        return classifySmtpError(err as Parameters<typeof classifySmtpError>[0]);
      }
    },
    async close() {
      transporter.close();
    },
  };
}
