// Issue 24: the delivery path (a reply to RCPT TO, delivery/classify.ts) and the report path (the
// same reply quoted by a DSN that gave up, inbound/parse-report.ts) read the same diagnostic the
// same way: the same reason, and hard for both or for neither.
import { describe, expect, it } from 'vitest';
import { classifySmtpError } from '../../delivery/classify.js';
import { parseReport } from '../../inbound/parse-report.js';
import { statusInReply } from './classify-failure.js';

function dsn(reply: string): Buffer {
  const status = statusInReply(reply) ?? '5.0.0';
  return Buffer.from(
    [
      'From: MAILER-DAEMON@relay.example.org',
      'To: bounces@bounces.example.com',
      'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '',
      '--b1',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; relay.example.org',
      '',
      'Final-Recipient: rfc822; jane@example.net',
      'Action: failed',
      `Status: ${status}`,
      `Diagnostic-Code: smtp; ${reply}`,
      '',
      '--b1--',
      '',
    ].join('\r\n'),
  );
}

const REPLIES = [
  '550 5.1.1 <jane@example.net>: Recipient address rejected: User unknown in virtual mailbox table',
  '550 5.1.1 <jane@example.net> - 203.0.113.222 has sent to too many recipients this hour',
  '550 5.1.1 RCP-P2 Refused due to recipient preferences',
  '550 5.1.1 Service unavailable; client host [203.0.113.9] blocked using zen.spamhaus.org',
  '550 5.2.1 The email account that you tried to reach is disabled',
  '552 5.2.2 Over quota',
  '550 5.4.1 Recipient address rejected: Access denied',
  '550 5.7.1 rejected by policy',
  '550 5.7.26 Unauthenticated email is not accepted from this domain',
  '554 5.7.1 Message rejected because of unacceptable content',
  '550 5.1.10 Recipient address has null MX',
  '550 5.0.0 <jane@example.net>... User Unknown',
  '550 Requested action not taken: mailbox unavailable',
  '552 5.3.4 Message size exceeds fixed maximum message size',
];

describe('a reply reads the same at delivery and in a DSN', () => {
  it.each(REPLIES)('%s', (reply) => {
    const live = classifySmtpError({
      code: 'EENVELOPE',
      command: 'RCPT TO',
      responseCode: Number(reply.slice(0, 3)),
      response: reply,
    });
    if (live.kind !== 'hard_fail') throw new Error(`a 5xx reply read as ${live.kind}`);
    const [item] = parseReport(dsn(reply)).items;
    expect(item).toMatchObject({ kind: 'failed' });
    expect({ hard: item!.hard, reason: item!.reason }).toEqual({
      hard: live.isRecipientBounce,
      reason: live.reason,
    });
  });
});
