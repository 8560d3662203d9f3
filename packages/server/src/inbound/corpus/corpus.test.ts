// The bounce corpus (README.md): every reporting system's layout × every diagnostic, read by
// parseReport as the diagnostic's reading says — the failed recipient, hard or not, the reason.
// test/feedback-corpus.test.ts sends the same samples over SMTP to `mailsvc inbound`.
import { describe, expect, it } from 'vitest';
import { parseReport } from '../parse-report.js';
import { corpusSamples } from './samples.js';

const samples = corpusSamples();

describe('the bounce corpus', () => {
  it('holds at least 300 samples', () => {
    expect(samples.length).toBeGreaterThanOrEqual(300);
  });

  it.each(samples)('$name', (sample) => {
    const report = parseReport(Buffer.from(sample.raw));
    const item = report.items.find((i) => i.recipient === sample.rcpt);
    expect(item, `read as ${report.type} with ${JSON.stringify(report.items)}`).toBeDefined();
    expect({ kind: item!.kind, hard: item!.hard, reason: item!.reason }).toEqual({
      kind: 'failed',
      hard: sample.hard,
      reason: sample.reason,
    });
  });
});

describe('reading a plain-text bounce in linear time', () => {
  // A hostile bounce: a known intro, then 64 KiB of lines built to make the address and reply
  // patterns work hard (an address without an end, digits that almost make a reply code), against
  // a benign bounce of the same size. The ratio, not a time, is asserted.
  const bounce = (filler: string) =>
    Buffer.from(
      [
        'From: MAILER-DAEMON@mx.example.net',
        'Subject: failure notice',
        'Content-Type: text/plain',
        '',
        'Hi. This is the qmail-send program at mx.example.net.',
        '<jane@example.org>:',
        'Sorry, no mailbox here by that name. (#5.1.1)',
        filler,
      ].join('\r\n'),
    );
  const lines = (line: string) => Array.from({ length: 64 }, () => line.slice(0, 999)).join('\n');
  const hostile = bounce(lines(`${'a'.repeat(500)}@${'b.'.repeat(240)}${'5'.repeat(9)}`));
  // runs of blanks and newlines, which overlapping quantifiers over white space would make quadratic
  const blanks = bounce(lines(' '.repeat(999)) + '\n'.repeat(4000));
  const benign = bounce(lines('x '.repeat(500)));
  const time = (raw: Buffer) => {
    const start = performance.now();
    for (let i = 0; i < 20; i++) parseReport(raw);
    return performance.now() - start;
  };

  it('costs about what a benign bounce of the same size costs', () => {
    time(benign);
    time(hostile);
    expect(time(hostile) / Math.max(time(benign), 0.01)).toBeLessThan(20);
    expect(time(blanks) / Math.max(time(benign), 0.01)).toBeLessThan(20);
  });
});

describe('what a plain-text or DSN reading must not take for a hard bounce (review of issue 24)', () => {
  const mail = (headers: string[], body: string) =>
    Buffer.from([...headers, 'MIME-Version: 1.0', '', body, ''].join('\r\n'));

  it('the subject above a Domino address is not its reason', () => {
    const report = parseReport(
      mail(
        ['From: Mail Router <router@example.org>', 'Subject: DELIVERY FAILURE', 'Content-Type: text/plain'],
        [
          'Your message',
          '',
          '  Subject: Your account has been disabled',
          '',
          '  was not delivered to:',
          '',
          '  jane@example.org',
          '',
          '  because:',
          '',
          '  Maximum hop count exceeded.  Message probably in a routing loop.',
        ].join('\r\n'),
      ),
    );
    expect(report.items.filter((i) => i.hard)).toEqual([]);
  });

  it('an automatic reply quoting a bounce intro is not a bounce', () => {
    const report = parseReport(
      mail(
        [
          'From: Jane <jane@example.org>',
          'Subject: Automatic reply',
          'Auto-Submitted: auto-replied',
          'Content-Type: text/plain',
        ],
        [
          'This mailbox is no longer in use; please write to the office.',
          '',
          '-----Original Message-----',
          'Your message did not reach some or all of the intended recipients.',
        ].join('\r\n'),
      ),
    );
    expect(report.items).toEqual([]);
  });

  it('a delay warning is not read, even when a quoted reply says "not a permanent error"', () => {
    const report = parseReport(
      mail(
        [
          'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
          'Subject: Warning: message delayed',
          'Content-Type: text/plain',
        ],
        [
          'This message was created automatically by mail delivery software.',
          'A message that you sent has not yet been delivered to one or more of its',
          'recipients after more than 24 hours on the queue on mx.example.net.',
          '',
          '  jane@example.org',
          '    450 4.1.1 <jane@example.org>: Recipient address rejected: User unknown (not a permanent error)',
        ].join('\r\n'),
      ),
    );
    expect(report.items).toEqual([]);
  });

  it("a DSN without a Diagnostic-Code is not read from the returned message's text, nor another address's line", () => {
    const boundary = 'B';
    const raw = [
      'From: MAILER-DAEMON@mx.example.net',
      'Subject: Delivery Status Notification',
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain',
      '',
      'Delivery failed for these recipients:',
      '  joanna@example.org: unknown user',
      '  anna@example.org: message loop',
      `--${boundary}`,
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.net',
      '',
      'Final-Recipient: rfc822; anna@example.org',
      'Action: failed',
      'Status: 5.0.0',
      '',
      `--${boundary}`,
      'Content-Type: message/rfc822',
      '',
      'From: Example App <notifications@mail.example.com>',
      'To: anna@example.org',
      'Subject: Your trial',
      '',
      'Hello Anna, your trial account has been disabled.',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const [item] = parseReport(Buffer.from(raw)).items;
    expect(item).toMatchObject({ kind: 'failed', recipient: 'anna@example.org', hard: false });
  });
});
