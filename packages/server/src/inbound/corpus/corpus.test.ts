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
  });
});
