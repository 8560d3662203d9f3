import { describe, expect, it } from 'vitest';
import { classifyFailure, type FailureEvidence, readFailure, statusInReply } from './classify-failure.js';
import { MAILBOX_MISSING, NOT_THE_RECIPIENT } from './failure-wording.js';

/** A permanent failure that counts against the recipient: the mailbox or its domain is missing. */
const countsAgainstRecipient = (e: FailureEvidence) => readFailure(e).hard;

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
    [undefined, '550 User unknown', true],
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

describe('the reading of a failure: a kind and a reason of one vocabulary', () => {
  const dsn = (status: string | undefined, text: string) => classifyFailure(report(status, text));

  it.each([...NOT_THE_RECIPIENT, ...MAILBOX_MISSING])('reads its sample as $reason: $sample', (w) => {
    // under a generic status, as a DSN that gave up reports it
    expect(dsn('5.0.0', w.sample).reason).toBe(w.reason);
  });

  // Hard bounces a generic status hid (issue 24's examples)
  it.each([
    ['5.0.0', '550 5.1.1 <jane@example.net>... User Unknown', 'user_unknown'],
    [
      '5.4.4',
      'Host or domain name not found. Name service error for name=example.invalid type=AAAA: Host not found',
      'host_unknown',
    ],
    ['5.4.1', '550 5.4.1 Recipient address rejected: Access denied', 'user_unknown'],
    ['5.1.0', '550 #5.1.0 Address rejected', 'user_unknown'],
    [undefined, '550 User unknown', 'user_unknown'],
    ['5.5.0', '550 5.5.0 Requested action not taken: mailbox unavailable', 'user_unknown'],
    ['5.2.1', '550 5.2.1 The email account that you tried to reach is disabled', 'mailbox_disabled'],
    ['4.1.1', 'retry timeout exceeded: 550 no such user', 'user_unknown'],
  ])('is hard under %s: %j', (status, text, reason) => {
    expect(dsn(status, text)).toEqual({ kind: 'hard', reason });
  });

  // Soft or blocked refusals a mailbox code dressed as hard (each would suppress a real person)
  it.each([
    [
      '5.1.1',
      '550 5.1.1 <jane@example.net> - 203.0.113.222 has sent to too many recipients this hour',
      'soft',
      'rate_limited',
    ],
    ['5.1.1', '550 5.1.1 RCP-P2 Refused due to recipient preferences', 'block', 'policy_blocked'],
    ['5.1.1', 'smtp; 552 5.2.2 Over quota', 'soft', 'mailbox_full'],
    ['5.1.1', 'procmail: Couldn\'t create "/var/spool/mail/jane"', 'soft', 'system_error'],
    ['5.7.1', '550 5.7.1 User unknown', 'block', 'policy_blocked'],
    [
      '5.1.8',
      '550 5.1.8 <bounces@example.org>: Sender address rejected: Domain not found',
      'block',
      'policy_blocked',
    ],
    ['5.7.26', '550 5.7.26 Unauthenticated email is not accepted from this domain', 'block', 'auth_failed'],
    ['5.3.4', '552 5.3.4 Message size exceeds fixed maximum message size', 'block', 'message_too_large'],
    ['4.4.7', 'Delivery expired (message too old)', 'soft', 'expired'],
  ])('is not hard under %s: %j (%s, %s)', (status, text, kind, reason) => {
    expect(dsn(status, text)).toEqual({ kind, reason });
  });

  it('a live 4xx reply is soft whatever it says; a refused MAIL FROM never speaks for the mailbox', () => {
    expect(
      classifyFailure({
        source: 'rcpt',
        permanent: false,
        replyCode: 450,
        status: '4.1.1',
        text: 'User unknown',
      }),
    ).toEqual({ kind: 'soft', reason: 'user_unknown' });
    expect(
      classifyFailure({
        source: 'command',
        permanent: true,
        replyCode: 550,
        status: '5.1.1',
        text: 'no such user',
      }),
    ).toEqual({ kind: 'block', reason: 'unknown' });
  });

  it('reads every wording in linear time: a hostile diagnostic costs about what a benign one does', () => {
    const benign = 'x'.repeat(50_000);
    const hostile = 'user '.repeat(10_000) + 'over '.repeat(10_000);
    const time = (text: string) => {
      const start = performance.now();
      for (let i = 0; i < 20; i++) classifyFailure(report('5.0.0', text));
      return performance.now() - start;
    };
    time(benign);
    expect(time(hostile) / Math.max(time(benign), 0.01)).toBeLessThan(20);
  });
});

describe('a cause the code names is not overridden by a "rejected" prefix (review of issue 24)', () => {
  it.each([
    [
      '4.3.5',
      '451 4.3.5 <jane@example.net>: Recipient address rejected: Server configuration problem',
      'system_error',
    ],
    ['5.2.2', '552 5.2.2 <jane@example.net>: Recipient address rejected: Mailbox quota full', 'mailbox_full'],
    ['5.5.3', '452 5.5.3 Invalid recipient count', 'unknown'],
    ['5.7.0', '550 5.7.0 This account has been disabled for sending', 'policy_blocked'],
  ])('%s %j is not hard', (status, text, reason) => {
    expect(classifyFailure(report(status, text))).toMatchObject({ reason });
    expect(countsAgainstRecipient(report(status, text))).toBe(false);
  });

  it('a 550 to RCPT TO counts as a missing mailbox only without an enhanced code', () => {
    const at = (status: string | undefined) =>
      countsAgainstRecipient({
        source: 'rcpt',
        permanent: true,
        replyCode: 550,
        ...(status && { status }),
        text: '550 <jane@example.net>... Access denied',
      });
    expect(at(undefined)).toBe(true);
    expect(at('5.0.0')).toBe(false);
  });
});
