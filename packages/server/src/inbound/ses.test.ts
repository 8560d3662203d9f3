import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sesFeedback } from './ses.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures-ses');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited freely in the tests
const sample = (name: string): any => JSON.parse(fixture(name));

/** A Permanent bounce of one recipient with the given fields, as SES would send it. */
function permanentBounce(recipient: Record<string, unknown>): string {
  const doc = sample('bounce-permanent.json');
  doc.bounce.bouncedRecipients = [{ emailAddress: 'jane.doe@example.org', action: 'failed', ...recipient }];
  return JSON.stringify(doc);
}

describe('SES bounces', () => {
  it('give one failed item per bounced recipient, hard only for a Permanent bounce not refused by policy', () => {
    expect(sesFeedback(fixture('bounce-permanent.json'))).toEqual({
      eventType: 'Bounce',
      items: [
        {
          kind: 'failed',
          hard: true,
          reason: 'user_unknown',
          recipient: 'jane.doe@example.org',
          status: '5.1.1',
          diagnostic:
            'smtp; 550 5.1.1 <jane.doe@example.org>: Recipient address rejected: User unknown in virtual mailbox table',
        },
        {
          kind: 'failed',
          hard: false,
          reason: 'policy_blocked',
          recipient: 'richard.roe@example.net',
          status: '5.7.1',
          diagnostic: 'smtp; 550 5.7.1 Message rejected due to local policy',
        },
      ],
      ref: {
        mailsvcMessageId: 'msg_01JD3Z6Q8K4W5X7Y9ZABCDEFGH',
        messageIdHeader: 'msg_01JD3Z6Q8K4W5X7Y9ZABCDEFGH@mail.example.com',
      },
    });
  });

  it('are never hard when Transient, whatever the status (event publishing format)', () => {
    const feedback = sesFeedback(fixture('bounce-transient.json'));
    expect(feedback?.eventType).toBe('Bounce');
    expect(feedback?.items).toEqual([
      {
        kind: 'failed',
        hard: false,
        reason: 'mailbox_full',
        recipient: 'sam.smith@example.com',
        status: '5.2.2',
        diagnostic: "smtp; 552 5.2.2 The recipient's mailbox is full and can't accept messages now",
      },
    ]);
  });

  it('are never hard when Undetermined', () => {
    const doc = sample('bounce-permanent.json');
    doc.bounce.bounceType = 'Undetermined';
    doc.bounce.bounceSubType = 'Undetermined';
    expect(sesFeedback(JSON.stringify(doc))?.items.map((i) => i.hard)).toEqual([false, false]);
  });

  it('are not hard when Permanent but the status is temporary (4.x.x) or a policy refusal (5.7.x)', () => {
    expect(sesFeedback(permanentBounce({ status: '4.4.7' }))?.items[0]?.hard).toBe(false);
    expect(sesFeedback(permanentBounce({ status: '5.7.26' }))?.items[0]?.hard).toBe(false);
  });

  it('take the status quoted in diagnosticCode when SES gives none, so a 5.7.x refusal stays soft', () => {
    const item = sesFeedback(
      permanentBounce({ diagnosticCode: 'smtp; 550 5.7.1 Service unavailable; client host blocked' }),
    )?.items[0];
    expect(item).toMatchObject({ hard: false, status: '5.7.1' });
  });

  it('without any status are hard only for the NoEmail subtype (the address does not exist)', () => {
    const bounce = (subType: string) => {
      const doc = JSON.parse(permanentBounce({}));
      doc.bounce.bounceSubType = subType;
      return sesFeedback(JSON.stringify(doc))?.items;
    };
    expect(bounce('NoEmail')).toEqual([
      { kind: 'failed', hard: true, reason: 'user_unknown', recipient: 'jane.doe@example.org' },
    ]);
    for (const subType of ['General', 'Suppressed', 'OnAccountSuppressionList'])
      expect(bounce(subType), subType).toEqual([
        { kind: 'failed', hard: false, reason: 'unknown', recipient: 'jane.doe@example.org' },
      ]);
  });

  it('with a status are hard only for a mailbox-missing code without block wording', () => {
    const hardOf = (r: Record<string, unknown>) => sesFeedback(permanentBounce(r))?.items[0]?.hard;
    expect(hardOf({ status: '5.1.1' })).toBe(true);
    expect(hardOf({ status: '5.0.0', diagnosticCode: 'smtp; 550 5.0.0 rejected' })).toBe(false);
    expect(hardOf({ status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 blocked by Spamhaus' })).toBe(false);
  });

  it('cut the diagnostic to 500 characters', () => {
    const item = sesFeedback(
      permanentBounce({ status: '5.1.1', diagnosticCode: `smtp; 550 ${'x'.repeat(2000)}` }),
    )?.items[0];
    expect(item?.diagnostic).toHaveLength(500);
  });

  it('without a bouncedRecipients list read as nothing', () => {
    const doc = sample('bounce-permanent.json');
    delete doc.bounce.bouncedRecipients;
    expect(sesFeedback(JSON.stringify(doc))).toBeNull();
  });
});

describe('SES complaints', () => {
  it('give one complained item per complained recipient when the feedback type is abuse', () => {
    expect(sesFeedback(fixture('complaint-abuse.json'))).toEqual({
      eventType: 'Complaint',
      items: [{ kind: 'complained', hard: false, recipient: 'pat.lee@example.com' }],
      ref: {
        mailsvcMessageId: 'msg_01JD40AB2CD3EF4GH5JK6MN7PQ',
        messageIdHeader: 'msg_01JD40AB2CD3EF4GH5JK6MN7PQ@mail.example.com',
      },
    });
  });

  it('count as abuse when SES gives no complaintFeedbackType (it often omits it)', () => {
    const doc = sample('complaint-abuse.json');
    delete doc.complaint.complaintFeedbackType;
    expect(sesFeedback(JSON.stringify(doc))?.items).toEqual([
      { kind: 'complained', hard: false, recipient: 'pat.lee@example.com' },
    ]);
  });

  it('give no items when the feedback type is not-spam, or another type than abuse', () => {
    const notSpam = sesFeedback(fixture('complaint-not-spam.json'));
    expect(notSpam).toEqual({
      eventType: 'Complaint',
      items: [],
      ref: {
        mailsvcMessageId: 'msg_01JD41CD3EF4GH5JK6MN7PQ8RS',
        messageIdHeader: 'msg_01JD41CD3EF4GH5JK6MN7PQ8RS@mail.example.com',
      },
    });
    for (const type of ['fraud', 'virus', 'other', 'auth-failure']) {
      const doc = sample('complaint-abuse.json');
      doc.complaint.complaintFeedbackType = type;
      expect(sesFeedback(JSON.stringify(doc))?.items, type).toEqual([]);
    }
  });
});

describe('SES deliveries', () => {
  it('give one delivered item per recipient, the SMTP reply as diagnostic', () => {
    expect(sesFeedback(fixture('delivery.json'))).toEqual({
      eventType: 'Delivery',
      items: [
        {
          kind: 'delivered',
          hard: false,
          recipient: 'alex.kim@example.org',
          diagnostic: '250 2.6.0 Message received',
        },
      ],
      ref: { messageIdHeader: 'msg_01JD42EF4GH5JK6MN7PQ8RS9TV@mail.example.com' },
    });
  });
});

describe('the message an SES notification names', () => {
  it('comes from X-Mailsvc-Message-ID and Message-ID whatever the letter case of the header names', () => {
    expect(sesFeedback(fixture('bounce-transient.json'))?.ref).toEqual({
      mailsvcMessageId: 'msg_01JD3Z7A1B2C3D4E5F6G7H8J9K',
      messageIdHeader: 'msg_01JD3Z7A1B2C3D4E5F6G7H8J9K@mail.example.com',
    });
  });

  it('takes the last Message-ID header, before commonHeaders.messageId', () => {
    const doc = sample('bounce-permanent.json');
    doc.mail.headers.push({ name: 'message-id', value: ' <later@relay.example.net> ' });
    expect(sesFeedback(JSON.stringify(doc))?.ref.messageIdHeader).toBe('later@relay.example.net');
  });

  it('falls back to commonHeaders.messageId when SES sends no headers', () => {
    const doc = sample('bounce-permanent.json');
    delete doc.mail.headers;
    expect(sesFeedback(JSON.stringify(doc))?.ref).toEqual({
      messageIdHeader: 'msg_01JD3Z6Q8K4W5X7Y9ZABCDEFGH@mail.example.com',
    });
  });

  it('never uses SES’s own mail.messageId', () => {
    const doc = sample('bounce-permanent.json');
    delete doc.mail.headers;
    delete doc.mail.commonHeaders;
    doc.mail.messageId = 'msg_01JD3Z6Q8K4W5X7Y9ZABCDEFGH';
    expect(sesFeedback(JSON.stringify(doc))?.ref).toEqual({});
  });

  it('ignores an X-Mailsvc-Message-ID that is not one of our message ids', () => {
    const doc = sample('bounce-permanent.json');
    doc.mail.headers = [{ name: 'X-Mailsvc-Message-ID', value: 'not-an-id' }];
    expect(sesFeedback(JSON.stringify(doc))?.ref.mailsvcMessageId).toBeUndefined();
  });
});

describe('other SES documents', () => {
  it.each([
    ['not JSON', 'Bounce!'],
    ['a JSON array', '[]'],
    ['a JSON string', '"Bounce"'],
    ['a Send event', JSON.stringify({ eventType: 'Send', mail: {}, send: {} })],
    ['an Open event', JSON.stringify({ eventType: 'Open', mail: {}, open: {} })],
    ['a DeliveryDelay event', JSON.stringify({ eventType: 'DeliveryDelay', mail: {}, deliveryDelay: {} })],
    ['a Reject event', JSON.stringify({ eventType: 'Reject', mail: {}, reject: { reason: 'Bad content' } })],
    [
      'the subscription notice',
      JSON.stringify({ notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'x' }),
    ],
    ['a Bounce without its bounce object', JSON.stringify({ notificationType: 'Bounce', mail: {} })],
    [
      'a Delivery without recipients',
      JSON.stringify({ notificationType: 'Delivery', mail: {}, delivery: {} }),
    ],
    [
      'a Complaint without recipients',
      JSON.stringify({ notificationType: 'Complaint', mail: {}, complaint: {} }),
    ],
  ])('read as nothing: %s', (_, message) => {
    expect(sesFeedback(message)).toBeNull();
  });
});
