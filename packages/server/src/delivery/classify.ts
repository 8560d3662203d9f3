// SMTP replies and errors → sent | soft_fail | hard_fail (RFC 5321 reply codes, RFC 3463
// enhanced status codes): whether to retry is decided here, whether the recipient bounced by the
// one failure reading that DSNs and relay events use too (domain/failures/classify-failure.ts).
import { classifyFailure, statusInReply } from '../domain/failures/classify-failure.js';
import type { DeliveryOutcome } from './transports/transport.js';

interface SmtpErrorLike {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

export function classifySmtpError(err: SmtpErrorLike): DeliveryOutcome {
  const response = (err.response ?? err.message ?? 'unknown error').slice(0, 500);
  const smtpCode = typeof err.responseCode === 'number' ? err.responseCode : undefined;
  const enhancedCode = statusInReply(response.split('\n', 1)[0]);
  const base = {
    response,
    ...(smtpCode !== undefined && { smtpCode }),
    ...(enhancedCode && { enhancedCode }),
  };
  // Our own refusal before sending (over the relay's advertised size limit, an empty message):
  // no reply code, and retrying cannot help. nodemailer also uses EMESSAGE for any non-2xx answer
  // to the end of DATA; those carry a reply code and are classified by it below (4xx is soft).
  if (err.code === 'EMESSAGE' && smtpCode === undefined) {
    const { reason } = classifyFailure({ source: 'command', permanent: true, text: response });
    return { kind: 'hard_fail', ...base, isRecipientBounce: false, reason };
  }
  // No reply code: connection refused, dropped, timed out, TLS or DNS trouble — all temporary.
  // A failed AUTH is the relay's configuration, not the message: retry until it is fixed.
  if (err.code === 'EAUTH') return { kind: 'soft_fail', ...base, reason: 'system_error' };
  if (smtpCode === undefined || smtpCode < 400)
    return { kind: 'soft_fail', ...base, reason: 'network_error' };
  // Only an answer to RCPT TO says something about the recipient's mailbox: a refused MAIL FROM
  // (5.1.7, 5.1.8: the bounce domain is not published, say) or DATA fails the message alone.
  const reading = classifyFailure({
    source: /^RCPT\b/i.test(err.command ?? '') ? 'rcpt' : 'command',
    permanent: smtpCode >= 500,
    replyCode: smtpCode,
    ...(enhancedCode && { status: enhancedCode }),
    text: response,
  });
  if (smtpCode < 500) return { kind: 'soft_fail', ...base, reason: reading.reason };
  return { kind: 'hard_fail', ...base, isRecipientBounce: reading.kind === 'hard', reason: reading.reason };
}
