// Builds the MIME message with nodemailer's composer (RFC 2047 headers, quoted-printable
// bodies, folding). Every header value here was validated on accept: addresses are bare and
// normalised, the display name has no control characters, the subject is one line.
import MailComposer from 'nodemailer/lib/mail-composer/index.js';

export interface MimeInput {
  messageId: string;
  sendingDomain: string;
  from: { name: string | null; address: string };
  to: string;
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  date: Date;
  /** Notification templates: the RFC 8058 one-click unsubscribe URL. */
  unsubscribeUrl: string | null;
}

/** `<msg_…@sending-domain>`: the same on every attempt, so receivers can drop duplicates. */
export function messageIdHeader(messageId: string, sendingDomain: string): string {
  return `<${messageId}@${sendingDomain}>`;
}

export function buildMime(input: MimeInput): Promise<Buffer> {
  const headers: Record<string, string> = { 'X-Mailsvc-Message-ID': input.messageId };
  if (input.unsubscribeUrl) {
    headers['List-Unsubscribe'] = `<${input.unsubscribeUrl}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  const composer = new MailComposer({
    from: input.from.name ? { name: input.from.name, address: input.from.address } : input.from.address,
    to: input.to,
    ...(input.replyTo && { replyTo: input.replyTo }),
    subject: input.subject,
    text: input.text,
    html: input.html,
    messageId: messageIdHeader(input.messageId, input.sendingDomain),
    date: input.date,
    headers,
    // Never let the composer turn values into something else (files, URLs).
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}
