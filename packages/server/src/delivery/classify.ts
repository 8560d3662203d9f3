// SMTP replies and errors → sent | soft_fail | hard_fail (RFC 5321 reply codes, RFC 3463
// enhanced status codes). The only place that reads SMTP details.
import type { DeliveryOutcome } from './transports/transport.js';

const ENHANCED = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;

interface SmtpErrorLike {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

export function enhancedCodeOf(response: string): string | undefined {
  return ENHANCED.exec(response)?.[0];
}

export function classifySmtpError(err: SmtpErrorLike): DeliveryOutcome {
  const response = (err.response ?? err.message ?? 'unknown error').slice(0, 500);
  const smtpCode = typeof err.responseCode === 'number' ? err.responseCode : undefined;
  const enhancedCode = enhancedCodeOf(response);
  const base = {
    response,
    ...(smtpCode !== undefined && { smtpCode }),
    ...(enhancedCode && { enhancedCode }),
  };
  // No reply code: connection refused, dropped, timed out, TLS or DNS trouble — all temporary.
  // A failed AUTH is the relay's configuration, not the message: retry until it is fixed.
  if (smtpCode === undefined || err.code === 'EAUTH') return { kind: 'soft_fail', ...base };
  if (smtpCode >= 400 && smtpCode < 500) return { kind: 'soft_fail', ...base };
  if (smtpCode >= 500) {
    // An enhanced code of class 4 inside a 5xx reply is contradictory; the reply code wins.
    const [cls, subject, detail] = (enhancedCode ?? '').split('.');
    const isRecipientBounce =
      cls === '5' && enhancedCode !== undefined
        ? subject === '1' || (subject === '2' && detail === '1')
        : enhancedCode === undefined && (smtpCode === 550 || smtpCode === 551 || smtpCode === 553);
    return { kind: 'hard_fail', ...base, isRecipientBounce };
  }
  return { kind: 'soft_fail', ...base };
}
