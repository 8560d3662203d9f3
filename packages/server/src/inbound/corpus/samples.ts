// The bounce corpus as samples: each reporting system's layout (formats.ts) × each diagnostic
// (diagnostics.ts), plus the systems that report in words only, with the reading each must get.
import type { FailureReason } from '@mailsvc/contract/message-errors';
import { DIAGNOSTICS } from './diagnostics.js';
import { FORMATS, WORDS_ONLY } from './formats.js';

export interface CorpusSample {
  name: string;
  raw: string;
  rcpt: string;
  hard: boolean;
  /** Words-only samples: only whether it is hard is asserted of the reason's kind. */
  reason: FailureReason;
}

/** The message a sample bounces: its header block, and its envelope sender (the VERP address). */
export interface BouncedMessage {
  original: string;
  sender: string;
}

/** A stand-in original for reading tests. */
const standIn = (rcpt: string): BouncedMessage => ({
  original: [
    'From: Example App <notifications@mail.example.com>',
    `To: ${rcpt}`,
    'Subject: Your login code',
    'Message-ID: <msg_01JDCORPUS0000000000000000.tag@mail.example.com>',
  ].join('\r\n'),
  sender: 'bounces+corpus@bounces.example.com',
});

/** The samples, each bouncing the message `bounced(rcpt)` gives (a stand-in by default). */
export function corpusSamples(bounced: (rcpt: string) => BouncedMessage = standIn): CorpusSample[] {
  const samples: CorpusSample[] = [];
  let n = 0;
  const next = () => `corpus-${++n}@example.org`;
  for (const [format, build] of Object.entries(FORMATS)) {
    for (const d of DIAGNOSTICS) {
      const rcpt = next();
      samples.push({
        name: `${format} × ${d.id} (${d.seen})`,
        raw: build({
          rcpt,
          diagnostic: d.text.replaceAll('{rcpt}', rcpt),
          status: d.status ?? '5.0.0',
          ...bounced(rcpt),
        }),
        rcpt,
        hard: d.hard,
        reason: d.reason,
      });
    }
  }
  for (const [format, { build, hard }] of Object.entries(WORDS_ONLY)) {
    const rcpt = next();
    samples.push({
      name: `${format} (words only)`,
      raw: build({ rcpt, diagnostic: '', status: '5.0.0', ...bounced(rcpt) }),
      rcpt,
      hard,
      reason: hard ? 'user_unknown' : 'mailbox_full',
    });
  }
  return samples;
}
