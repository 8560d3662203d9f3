// The bounce corpus end to end (issue 24): a message is sent to each sample's recipient and
// delivered to an in-process relay (250); the sample's bounce, naming that message's signed VERP
// address, is mailed over SMTP to `mailsvc inbound`; the message ends bounced or failed with the
// sample's reason, and only the hard samples count against their recipient. Both backends.
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import type { SmtpSink } from '@mailsvc/testkit/smtp-sink';
import type { Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessages } from '../src/db/repositories/send.js';
import type { DeliveryWorker } from '../src/delivery/worker.js';
import { corpusSamples } from '../src/inbound/corpus/samples.js';
import { acceptItem } from './accept-item.js';
import { startInboundRig } from './inbound-rig.js';

let h: Harness;
let s: Scope;
let sink: SmtpSink;
let worker: DeliveryWorker;
let rig: Awaited<ReturnType<typeof startInboundRig>>;
let mailer: Transporter;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 10_000 });
  // a pool of a few connections, as a relay would (inbound limits connected clients)
  rig = await startInboundRig(h, { maxConnections: 4 });
  ({ sink, worker, mailer } = rig);
});
afterAll(async () => {
  await rig.close();
  await h.close();
});

describe('the bounce corpus through mailsvc inbound', () => {
  it('records every sample as its reading says: status, reason, and the recipient only for hard ones', async () => {
    const rcpts = corpusSamples().map((x) => x.rcpt);
    const now = h.clock.now();
    const items = rcpts.map((rcpt) => acceptItem(s, now, { message: { toEmail: rcpt } }));
    for (let i = 0; i < items.length; i += 100) {
      const outcomes = await acceptMessages(h.runtime.deps.db, items.slice(i, i + 100));
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    }
    await worker.drain();
    const byRcpt = new Map(sink.received.map((r) => [r.rcptTo[0]!, r]));
    // each sample built around the message it bounces: its header block and its VERP sender
    const samples = corpusSamples((rcpt) => {
      const received = byRcpt.get(rcpt);
      if (!received) throw new Error(`nothing delivered to ${rcpt}`);
      return { original: received.raw.toString('utf8').split(/\r?\n\r?\n/)[0]!, sender: received.mailFrom };
    });
    const bounces = samples.map((sample, i) => ({
      sample,
      messageId: items[i]!.message.id,
      raw: sample.raw,
      envelopeTo: byRcpt.get(sample.rcpt)!.mailFrom,
    }));
    const answers = await Promise.all(
      bounces.map((b) =>
        mailer
          .sendMail({ envelope: { from: '', to: b.envelopeTo }, raw: b.raw })
          .then(() => 'ok')
          .catch((err: Error) => err.message),
      ),
    );
    expect(answers.filter((a) => a !== 'ok')).toEqual([]);
    const rows = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['id', 'status', 'last_error'])
      .where('environment_id', '=', s.environmentId)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const wrong = bounces.flatMap(({ sample, messageId }) => {
      const row = byId.get(messageId)!;
      const want = { status: sample.hard ? 'bounced' : 'failed', reason: sample.reason };
      const got = { status: row.status, reason: (row.last_error as { reason?: string } | null)?.reason };
      return JSON.stringify(got) === JSON.stringify(want) ? [] : [{ sample: sample.name, want, got }];
    });
    expect(wrong).toEqual([]);
    const counted = await h.runtime.deps.db
      .selectFrom('recipients')
      .select(['email', 'hard_bounce_count'])
      .where('environment_id', '=', s.environmentId)
      .where('hard_bounce_count', '>', 0)
      .execute();
    expect(new Set(counted.map((r) => r.email))).toEqual(
      new Set(samples.filter((x) => x.hard).map((x) => x.rcpt)),
    );
  });
});
