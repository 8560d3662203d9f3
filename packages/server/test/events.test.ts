// Relay events over HTTP: POST /v1/events/intake (Standard Webhooks, a secret per environment)
// and POST /v1/events/ses (Amazon SES through SNS, signature checked against a locally made
// certificate). Each changes only a message of its environment; replays and bad signatures
// change nothing.
import { createSign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import {
  bearer,
  createHarness,
  type Harness,
  recipientRow,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryWorker } from '../src/delivery/worker.js';

let h: Harness;
let s: Scope;
let other: Scope;
let worker: DeliveryWorker;
let secret: string;

const SES_FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/inbound/fixtures-ses');
const sesFixture = (name: string) => fs.readFileSync(path.join(SES_FIXTURES, name), 'utf8');
const KEY = sesFixture('test-signing-key.pem');
const CERT = sesFixture('test-signing-cert.pem');
const CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:mailsvc-ses-feedback';

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  other = await seedScope(h);
  // Capture transport: "sent" without a relay.
  const { captureTransport, inboxDir } = await import('../src/delivery/transports/capture.js');
  worker = new DeliveryWorker(h.runtime.deps, captureTransport(inboxDir(h.dataDir)), {
    concurrency: 4,
    leaseMs: 300_000,
    pollMs: 3_600_000,
  });
  secret = (await h.admin('events.create-secret', { environment: s.environmentId })).secret.secret;
  await h.admin('events.add-ses-topic', { environment: s.environmentId, topicArn: TOPIC });
});
afterAll(async () => {
  await worker.stop();
  await h.close();
});

let counter = 0;
const address = (tag: string) => `${tag}-${++counter}@example.net`;

async function sent(to: string, scope: Scope = s): Promise<string> {
  const res = await h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(scope.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ templateId: 'login-code', to, data: { code: '482913' } }),
  });
  expect(res.statusCode, res.body).toBe(200);
  await worker.drain();
  return res.json().messageId;
}

const status = async (id: string) =>
  (
    await h.runtime.deps.db
      .selectFrom('messages')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).status;

let eventCounter = 0;
function signed(
  body: Record<string, unknown>,
  opts: { secret?: string; id?: string; at?: Date; raw?: string } = {},
) {
  const payload = opts.raw ?? JSON.stringify({ environmentId: s.environmentId, ...body });
  const id = opts.id ?? `evt-${++eventCounter}`;
  const at = opts.at ?? new Date();
  return {
    method: 'POST' as const,
    url: '/v1/events/intake',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(opts.secret ?? secret).sign(id, at, payload),
    },
    payload,
  };
}

describe('POST /v1/events/intake', () => {
  it('marks a message delivered, bounced (a hard bounce for 5.1.1) or complained', async () => {
    const a = await sent(address('delivered'));
    let res = await h.request(signed({ type: 'delivered', messageId: a }));
    expect(res.json()).toEqual({ ok: true, outcome: 'applied' });
    expect(await status(a)).toBe('delivered');

    const toB = address('bounced');
    const b = await sent(toB);
    res = await h.request(
      signed({
        type: 'bounced',
        messageIdHeader: `<${b}@mailsvc.test>`,
        bounce: { type: 'permanent', status: '5.1.1', diagnostic: '550 5.1.1 User unknown' },
      }),
    );
    expect(res.json().outcome).toBe('applied');
    expect(await status(b)).toBe('bounced');
    expect((await recipientRow(h, s.environmentId, toB))?.hard_bounce_count).toBe(1);

    const toC = address('complained');
    const c = await sent(toC);
    res = await h.request(signed({ type: 'complained', messageId: c }));
    expect(res.json().outcome).toBe('applied');
    const next = await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ templateId: 'login-code', to: toC, data: { code: '111111' } }),
    });
    expect(next.statusCode).toBe(403);
    expect(next.json().error.code).toBe('recipient_complained');
  });

  it('fails the message without touching the recipient for a 5.7.1 bounce, and ignores a transient one', async () => {
    const to = address('policy');
    const id = await sent(to);
    const transient = await h.request(
      signed({ type: 'bounced', messageId: id, bounce: { type: 'transient', status: '4.2.2' } }),
    );
    expect(transient.json().outcome).toBe('ignored');
    expect(await status(id)).toBe('sent');
    await h.request(
      signed({ type: 'bounced', messageId: id, bounce: { type: 'permanent', status: '5.7.1' } }),
    );
    expect(await status(id)).toBe('failed');
    expect(await recipientRow(h, s.environmentId, to)).toBeUndefined();
  });

  it('ignores a replayed webhook-id: the bounce is counted once', async () => {
    const to = address('replay');
    const id = await sent(to);
    const request = signed({
      type: 'bounced',
      messageId: id,
      bounce: { type: 'permanent', status: '5.1.1' },
    });
    expect((await h.request(request)).json().outcome).toBe('applied');
    expect((await h.request(request)).json()).toEqual({ ok: true, outcome: 'replayed' });
    // The same event again under a new id: a duplicate of what the message already shows.
    expect(
      (
        await h.request(
          signed({ type: 'bounced', messageId: id, bounce: { type: 'permanent', status: '5.1.1' } }),
        )
      ).json().outcome,
    ).toBe('duplicate');
    expect((await recipientRow(h, s.environmentId, to))?.hard_bounce_count).toBe(1);
  });

  it('changes nothing for another environment’s message (unknown_message)', async () => {
    const to = address('stranger');
    const theirs = await sent(to, other);
    const res = await h.request(signed({ type: 'complained', messageId: theirs }));
    expect(res.json()).toEqual({ ok: true, outcome: 'unknown_message' });
    expect(await status(theirs)).toBe('sent');
    expect(await recipientRow(h, other.environmentId, to)).toBeUndefined();
  });

  it.each([
    [
      'a missing signature',
      (r: ReturnType<typeof signed>) => ({ ...r, headers: { ...r.headers, 'webhook-signature': '' } }),
    ],
    [
      'a wrong secret',
      () =>
        signed(
          { type: 'delivered', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
          { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
        ),
    ],
    [
      'a timestamp 6 minutes old',
      () =>
        signed(
          { type: 'delivered', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
          { at: new Date(Date.now() - 6 * 60_000) },
        ),
    ],
    [
      'a timestamp 6 minutes ahead',
      () =>
        signed(
          { type: 'delivered', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
          { at: new Date(Date.now() + 6 * 60_000) },
        ),
    ],
    [
      'a body changed after signing',
      (r: ReturnType<typeof signed>) => ({ ...r, payload: r.payload.replace('delivered', 'complained') }),
    ],
    [
      'an environment without a secret',
      () =>
        signed({
          type: 'delivered',
          environmentId: other.environmentId,
          messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        }),
    ],
    ['no environmentId', () => signed({}, { raw: JSON.stringify({ type: 'delivered' }) })],
  ])('refuses %s with 401 invalid_signature', async (_name, make) => {
    const base = signed({ type: 'delivered', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' });
    const res = await h.request(make(base));
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().error.code).toBe('invalid_signature');
  });

  it('answers 400 invalid_request for a signed event without a message reference or a bounced event without bounce', async () => {
    for (const body of [
      { type: 'delivered' },
      { type: 'bounced', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
      { type: 'opened', messageId: 'x' },
    ]) {
      const res = await h.request(signed(body));
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });

  it('answers 415 for a body that is not JSON', async () => {
    const r = signed({ type: 'delivered', messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' });
    const res = await h.request({ ...r, headers: { ...r.headers, 'content-type': 'text/plain' } });
    expect(res.statusCode).toBe(415);
  });

  it('refuses events signed with a revoked secret at once', async () => {
    const t = await seedScope(h);
    const { secret: created } = await h.admin('events.create-secret', { environment: t.environmentId });
    const event = () =>
      signed(
        { type: 'delivered', environmentId: t.environmentId, messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
        { secret: created.secret },
      );
    expect((await h.request(event())).statusCode).toBe(200);
    const first = await h.admin('events.revoke-secret', { id: created.id });
    expect((await h.request(event())).statusCode).toBe(401);
    h.clock.advance(1000);
    // Revoking again keeps the time it ended.
    expect((await h.admin('events.revoke-secret', { id: created.id })).secret.expiresAt).toBe(
      first.secret.expiresAt,
    );
  });

  it('keeps the previous secret valid for 24 hours after a new one is created', async () => {
    const t = await seedScope(h);
    const first = (await h.admin('events.create-secret', { environment: t.environmentId })).secret.secret;
    const created = await h.admin('events.create-secret', { environment: t.environmentId });
    expect(created.secret.previousSecretsValidUntil).toBeDefined();
    const event = (sec: string) =>
      signed(
        { type: 'delivered', environmentId: t.environmentId, messageId: 'msg_01M81C1XJB7Y4KHB01G4B1P0M5' },
        { secret: sec },
      );
    expect((await h.request(event(first))).json().outcome).toBe('unknown_message');
    expect((await h.request(event(created.secret.secret))).json().outcome).toBe('unknown_message');
    h.clock.advance(24 * 3_600_000 + 1);
    expect((await h.request(event(first))).statusCode).toBe(401);
    expect((await h.request(event(created.secret.secret))).statusCode).toBe(200);
    const shown = await h.admin('events.show', { environment: t.environmentId });
    expect(shown.events.secrets).toHaveLength(2);
    expect(JSON.stringify(shown)).not.toContain(first);
  });
});

function snsSign<T extends Record<string, unknown>>(msg: T): T {
  const keys =
    msg.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = keys
    .filter((k) => msg[k] !== undefined)
    .map((k) => `${k}\n${msg[k]}\n`)
    .join('');
  const signer = createSign('RSA-SHA256');
  signer.update(text, 'utf8');
  return { ...msg, SignatureVersion: '2', Signature: signer.sign(KEY, 'base64') };
}

let snsCounter = 0;
function sesNotification(fixture: string, messageId: string, to: string, topic = TOPIC) {
  const doc = JSON.parse(sesFixture(fixture));
  doc.mail.headers = [
    { name: 'Message-ID', value: `<${messageId}@mailsvc.test>` },
    { name: 'X-Mailsvc-Message-ID', value: messageId },
  ];
  if (doc.bounce) doc.bounce.bouncedRecipients = [{ ...doc.bounce.bouncedRecipients[0], emailAddress: to }];
  if (doc.complaint) doc.complaint.complainedRecipients = [{ emailAddress: to }];
  if (doc.delivery) doc.delivery.recipients = [to];
  return snsSign({
    Type: 'Notification',
    MessageId: `00000000-0000-4000-8000-${String(++snsCounter).padStart(12, '0')}`,
    TopicArn: topic,
    Message: JSON.stringify(doc),
    Timestamp: new Date().toISOString(),
    SigningCertURL: CERT_URL,
  });
}

const postSns = (body: unknown, contentType = 'text/plain; charset=UTF-8') =>
  h.request({
    method: 'POST',
    url: '/v1/events/ses',
    headers: { 'content-type': contentType },
    payload: JSON.stringify(body),
  });

describe('POST /v1/events/ses', () => {
  beforeAll(() => {
    h.runtime.deps.sns = {
      fetchCertificate: vi.fn(async (url: URL) => {
        expect(url.href).toBe(CERT_URL);
        return CERT;
      }),
      confirmSubscription: vi.fn(async () => {}),
      certificates: new Map(),
    };
  });

  it('reads a Permanent 5.1.1 bounce, a complaint and a delivery, posted as text/plain like SNS does', async () => {
    const toB = address('ses-bounce');
    const b = await sent(toB);
    const res = await postSns(sesNotification('bounce-permanent.json', b, toB));
    expect(res.json(), res.body).toEqual({ ok: true, outcome: 'applied' });
    expect(await status(b)).toBe('bounced');
    expect((await recipientRow(h, s.environmentId, toB))?.hard_bounce_count).toBe(1);

    const toC = address('ses-complaint');
    const c = await sent(toC);
    expect((await postSns(sesNotification('complaint-abuse.json', c, toC))).json().outcome).toBe('applied');
    expect(await status(c)).toBe('complained');

    const toD = address('ses-delivery');
    const d = await sent(toD);
    expect((await postSns(sesNotification('delivery.json', d, toD), 'application/json')).json().outcome).toBe(
      'applied',
    );
    expect(await status(d)).toBe('delivered');
  });

  it('ignores a replayed SNS message and a not-spam complaint', async () => {
    const to = address('ses-replay');
    const id = await sent(to);
    const message = sesNotification('delivery.json', id, to);
    expect((await postSns(message)).json().outcome).toBe('applied');
    expect((await postSns(message)).json().outcome).toBe('replayed');
    const notSpam = await postSns(sesNotification('complaint-not-spam.json', id, to));
    expect(notSpam.json().outcome).toBe('ignored');
    expect(await status(id)).toBe('delivered');
  });

  it('refuses a tampered message with 401 invalid_signature and changes nothing', async () => {
    const to = address('ses-tampered');
    const id = await sent(to);
    const message = sesNotification('bounce-permanent.json', id, to);
    const res = await postSns({ ...message, Message: message.Message.replace('Permanent', 'Permanent ') });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_signature');
    expect(await status(id)).toBe('sent');
  });

  it('refuses a certificate URL off sns.<region>.amazonaws.com without fetching it', async () => {
    const fetcher = h.runtime.deps.sns.fetchCertificate as ReturnType<typeof vi.fn>;
    const before = fetcher.mock.calls.length;
    const message = snsSign({
      ...sesNotification('delivery.json', 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', 'x@example.net'),
      SigningCertURL: 'https://sns.us-east-1.amazonaws.com.evil.example/cert.pem',
    });
    const res = await postSns(message);
    expect(res.statusCode).toBe(401);
    expect(fetcher.mock.calls.length).toBe(before);
  });

  it('refuses a topic no environment registered with 403 sns_topic_not_registered', async () => {
    const res = await postSns(
      sesNotification(
        'delivery.json',
        'msg_01M81C1XJB7Y4KHB01G4B1P0M5',
        'x@example.net',
        'arn:aws:sns:us-east-1:999999999999:someone-else',
      ),
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('sns_topic_not_registered');
  });

  it('refuses a topic once it is removed', async () => {
    const topic = 'arn:aws:sns:us-east-1:123456789012:removed-later';
    await h.admin('events.add-ses-topic', { environment: s.environmentId, topicArn: topic });
    const message = () =>
      sesNotification('delivery.json', 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', 'x@example.net', topic);
    expect((await postSns(message())).statusCode).toBe(200);
    await h.admin('events.remove-ses-topic', { topicArn: topic });
    expect((await postSns(message())).statusCode).toBe(403);
  });

  it('confirms a subscription of a registered topic by visiting its SubscribeURL', async () => {
    const doc = JSON.parse(sesFixture('subscription-confirmation.json'));
    const message = snsSign({
      ...doc,
      TopicArn: TOPIC,
      SigningCertURL: CERT_URL,
      Timestamp: new Date().toISOString(),
    });
    const res = await postSns(message);
    expect(res.json(), res.body).toEqual({ ok: true, outcome: 'subscribed' });
    expect(h.runtime.deps.sns.confirmSubscription).toHaveBeenCalledWith(new URL(doc.SubscribeURL));
  });

  it('answers 503 when the signing certificate cannot be fetched, so SNS retries', async () => {
    const saved = h.runtime.deps.sns;
    h.runtime.deps.sns = {
      ...saved,
      certificates: new Map(),
      fetchCertificate: async () => {
        throw new Error('ETIMEDOUT');
      },
    };
    try {
      const res = await postSns(
        sesNotification('delivery.json', 'msg_01M81C1XJB7Y4KHB01G4B1P0M5', 'x@example.net'),
      );
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('service_unavailable');
    } finally {
      h.runtime.deps.sns = saved;
    }
  });
});

for (const id of ['ingestRelayEvent', 'ingestSesEvent'] as const) {
  runCommonRouteTests(id, () => h);
}
