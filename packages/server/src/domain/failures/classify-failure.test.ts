import { describe, expect, it } from 'vitest';
import { countsAgainstRecipient, type FailureEvidence, statusInReply } from './classify-failure.js';

const report = (status: string | undefined, text: string): FailureEvidence => ({
  source: 'report',
  permanent: true,
  ...(status && { status }),
  text,
});

describe('a failure counts against the recipient only when the mailbox or its domain is missing', () => {
  it.each([
    ['5.1.1', 'smtp; 550 5.1.1 User unknown', true],
    ['5.1.2', 'Host or domain name not found', true],
    ['5.1.10', 'null MX', true],
    ['5.2.1', 'mailbox disabled', true],
    ['5.1.1', '550 5.1.1 blocked using zen.spamhaus.org', false],
    ['5.7.1', 'User unknown', false],
    ['5.2.2', 'mailbox full', false],
    ['4.1.1', 'User unknown (try again)', false],
    [undefined, '550 User unknown', false],
  ])('a report with status %s and %j counts: %s', (status, diagnostic, hard) => {
    expect(countsAgainstRecipient(report(status, diagnostic))).toBe(hard);
  });

  it('never for a failure that is not permanent, nor for a refused MAIL FROM or DATA', () => {
    expect(countsAgainstRecipient({ ...report('5.1.1', 'User unknown'), permanent: false })).toBe(false);
    expect(
      countsAgainstRecipient({
        source: 'command',
        permanent: true,
        status: '5.1.1',
        replyCode: 550,
        text: '',
      }),
    ).toBe(false);
  });

  it('a bare 550, 551 or 553 stands for a missing mailbox in a live reply to RCPT TO only', () => {
    for (const replyCode of [550, 551, 553]) {
      expect(
        countsAgainstRecipient({ source: 'rcpt', permanent: true, replyCode, text: 'No such user' }),
      ).toBe(true);
    }
    expect(countsAgainstRecipient({ source: 'rcpt', permanent: true, replyCode: 554, text: 'failed' })).toBe(
      false,
    );
  });

  // DESIGN §5: a reputation refusal never touches the recipient, whether the receiver says so at
  // RCPT TO or in a DSN afterwards. The same reply read both ways gives the same answer.
  it.each([
    ['550 5.1.1 <jane@example.net>: Recipient address rejected: User unknown', true],
    ['550 5.1.1 Service unavailable; client host [203.0.113.9] listed at Spamhaus', false],
    ['550 5.1.1 sender blocked for poor reputation', false],
    ['550 5.2.1 mailbox disabled', true],
    ['550 5.7.1 rejected by policy', false],
    ['552 5.2.2 mailbox full', false],
    ['550 5.1.8 sender domain not found', false],
  ])('%j at RCPT TO and in a DSN agree (%s)', (reply, hard) => {
    const status = statusInReply(reply);
    const atRcpt = countsAgainstRecipient({
      source: 'rcpt',
      permanent: true,
      replyCode: Number(reply.slice(0, 3)),
      ...(status && { status }),
      text: reply,
    });
    const inDsn = countsAgainstRecipient(report(status, `smtp; ${reply}`));
    expect([atRcpt, inDsn]).toEqual([hard, hard]);
  });

  it('reads an enhanced code only where it follows a reply code, not inside an IP address', () => {
    expect(statusInReply('host 203.5.1.1 said: 550 5.1.1 no such user')).toBe('5.1.1');
    expect(statusInReply('host 203.5.1.1 said: no such user')).toBeUndefined();
    expect(statusInReply('Sorry, no mailbox here by that name. (#5.1.1)')).toBe('5.1.1');
  });
});
