// SMTP replies and errors → sent | soft_fail | hard_fail (RFC 5321 reply codes, RFC 3463
// enhanced status codes). The only place that reads SMTP details.
import type { DeliveryOutcome } from './transports/transport.js';

// The enhanced code stands right after the reply code ("550 5.1.1 …", "550-5.1.1 …"); a number
// elsewhere in the text (an IP address such as 203.5.1.2) is not one.
const ENHANCED = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/;

interface SmtpErrorLike {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

export function enhancedCodeOf(response: string): string | undefined {
  return ENHANCED.exec(response)?.[1];
}

/**
 * Only an answer to RCPT TO says something about the recipient's mailbox. A refused MAIL FROM
 * (5.1.7, 5.1.8: the bounce domain is not published, say) or a refused DATA fails the message
 * without touching the recipient.
 */
function isRecipientBounce(err: SmtpErrorLike, smtpCode: number, enhancedCode: string | undefined): boolean {
  if (!/^RCPT\b/i.test(err.command ?? '')) return false;
  if (enhancedCode) {
    const [cls, subject, detail] = enhancedCode.split('.');
    return cls === '5' && (subject === '1' || (subject === '2' && detail === '1'));
  }
  return smtpCode === 550 || smtpCode === 551 || smtpCode === 553;
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
  // Our own refusal before sending (over the relay's advertised size limit, an empty message):
  // no reply code, and retrying cannot help. nodemailer also uses EMESSAGE for any non-2xx answer
  // to the end of DATA; those carry a reply code and are classified by it below (4xx is soft).
  if (err.code === 'EMESSAGE' && smtpCode === undefined)
    return { kind: 'hard_fail', ...base, isRecipientBounce: false };
  // No reply code: connection refused, dropped, timed out, TLS or DNS trouble — all temporary.
  // A failed AUTH is the relay's configuration, not the message: retry until it is fixed.
  if (smtpCode === undefined || err.code === 'EAUTH') return { kind: 'soft_fail', ...base };
  if (smtpCode >= 400 && smtpCode < 500) return { kind: 'soft_fail', ...base };
  if (smtpCode >= 500) {
    return { kind: 'hard_fail', ...base, isRecipientBounce: isRecipientBounce(err, smtpCode, enhancedCode) };
  }
  return { kind: 'soft_fail', ...base };
}
