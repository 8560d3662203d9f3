// Retention: message metadata older than MAILSVC_RETENTION_DAYS that reached a final status is
// deleted with its events and idempotency records; everything else stays.
import { gzipSync } from 'node:zlib';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteMessagesBefore } from '../src/db/repositories/retention.js';
import { sweepOnce } from '../src/delivery/retention.js';
import { seedContacts } from './bulk-helpers.js';

let h: Harness;
let s: Scope;
const DAY = 86_400_000;

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_RETENTION_DAYS: '30' } });
  s = await seedScope(h);
});
afterAll(() => h.close());

async function send(to: string, key: string): Promise<string> {
  const res = await h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json', 'idempotency-key': key },
    payload: JSON.stringify({ templateId: 'login-code', to, data: { code: '482913' } }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
const db = () => h.runtime.deps.db;
const setStatus = (id: string, status: 'sent' | 'bounced') =>
  db().updateTable('messages').set({ status }).where('id', '=', id).execute();
const count = async (
  table: 'messages' | 'message_events' | 'idempotency_keys' | 'feedback_reports',
  column: string,
  id: string,
) =>
  Number(
    (
      await db()
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(column as never, '=', id as never)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('retention', () => {
  it('deletes final messages older than MAILSVC_RETENTION_DAYS with their events, keys and feedback evidence, keeps the rest', async () => {
    const oldSent = await send('old-sent@example.com', 'old-1');
    const oldBounced = await send('old-bounced@example.com', 'old-2');
    const oldQueued = await send('old-queued@example.com', 'old-3');
    await setStatus(oldSent, 'sent');
    await setStatus(oldBounced, 'bounced');
    // The report the bounce came from, kept as evidence, goes with its message.
    await db()
      .insertInto('feedback_reports')
      .values({
        id: 'frp_01M81C1XJB7Y4KHB01G4B1P0M5',
        message_id: oldBounced,
        tenant_id: s.tenantId,
        source: 'inbound',
        report_type: 'dsn',
        raw_gzip: gzipSync('Subject: bounce'),
        created_at: h.clock.now(),
      })
      .execute();
    h.clock.advance(31 * DAY);
    const recent = await send('recent@example.com', 'recent-1');
    await setStatus(recent, 'sent');

    const result = await sweepOnce(h.runtime.deps);
    expect(result.messages).toBe(2);
    for (const id of [oldSent, oldBounced]) {
      expect(await count('messages', 'id', id), id).toBe(0);
      expect(await count('message_events', 'message_id', id), id).toBe(0);
      expect(await count('idempotency_keys', 'message_id', id), id).toBe(0);
      expect(await count('feedback_reports', 'message_id', id), id).toBe(0);
      const res = await h.request({
        method: 'POST',
        url: '/v1/messages/get',
        headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
        payload: JSON.stringify({ messageId: id }),
      });
      expect(res.statusCode).toBe(404);
    }
    // Not final, or not old enough: kept.
    expect(await count('messages', 'id', oldQueued)).toBe(1);
    expect(await count('messages', 'id', recent)).toBe(1);
    expect(await count('message_events', 'message_id', recent)).toBe(1);
    // The old queued message's idempotency record expired after 24 h: gone; the recent one's is live.
    expect(result.idempotencyKeys).toBe(1);
    expect(await count('idempotency_keys', 'message_id', oldQueued)).toBe(0);
    expect(await count('idempotency_keys', 'message_id', recent)).toBe(1);
    expect(await sweepOnce(h.runtime.deps)).toEqual({
      messages: 0,
      idempotencyKeys: 0,
      intakeIds: 0,
      stoppedJobMessages: 0,
      jobData: 0,
      jobs: 0,
      webhookRows: 0,
      consoleRows: 0,
    });
  });

  it('deletes in batches of the size asked for', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await send(`batch-${i}@example.com`, `batch-${i}`));
    for (const id of ids) await setStatus(id, 'sent');
    // These three and the first test's recent message are final and before `later`.
    const later = new Date(h.clock.now().getTime() + DAY);
    expect(await deleteMessagesBefore(db(), later, 3)).toBe(3);
    expect(await deleteMessagesBefore(db(), later, 3)).toBe(1);
    expect(await deleteMessagesBefore(db(), later, 3)).toBe(0);
  });

  it("drops a bulk send's template data once none of its messages waits, and the job after its messages", async () => {
    await seedContacts(
      h,
      s.tenantId,
      [{ email: 'bulk-1@example.com' }, { email: 'bulk-2@example.com' }],
      'ret',
    );
    const res = await h.request({
      method: 'POST',
      url: '/v1/contacts/send',
      headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({
        templateId: 'mention',
        to: ['bulk-1@example.com', 'bulk-2@example.com'],
        data: {},
      }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId;
    const job = () =>
      db().selectFrom('bulk_jobs').select('template_data').where('id', '=', jobId).executeTakeFirst();
    const [first, second] = await db()
      .selectFrom('messages')
      .select('id')
      .where('bulk_job_id', '=', jobId)
      .execute();
    await setStatus(first!.id, 'sent');
    await sweepOnce(h.runtime.deps);
    expect((await job())?.template_data).not.toBeNull();
    await setStatus(second!.id, 'bounced');
    expect((await sweepOnce(h.runtime.deps)).jobData).toBe(1);
    expect((await job())?.template_data).toBeNull();
    h.clock.advance(31 * DAY);
    const later = await sweepOnce(h.runtime.deps);
    expect(later).toMatchObject({ messages: 2, jobs: 1 });
    expect(await job()).toBeUndefined();
  });
});
