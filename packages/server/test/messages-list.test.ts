// A send's metadata and POST /v1/messages/list (DESIGN.md §12): metadata checked, stored and shown
// by every message read and a bulk send; the list newest first, each filter and their AND, the
// cursor (a walk sees each message once; a cursor changed, moved to another environment or other
// filters, or older than 24 hours is refused with 400), environments kept apart, never content.
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteMessagesBefore } from '../src/db/repositories/retention.js';
import { seedContacts } from './bulk-helpers.js';

let h: Harness;
let s: Scope;
/** A second environment of its own tenant: nothing of it may show in s's lists. */
let other: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  other = await seedScope(h);
});
afterAll(() => h.close());

const SECOND = 1000;
const HOUR = 3_600_000;

const post = (url: string, body: unknown, apiKey = s.apiKey) => postJson(h, apiKey, url, body);
const list = (body: Record<string, unknown>, apiKey = s.apiKey) => post('/v1/messages/list', body, apiKey);

interface Listed {
  messageId: string;
  status: string;
  templateId: string;
  metadata: Record<string, string>;
  emailMasked: string;
  bulkJobId?: string;
}

/** The ids a list answers, page after page, following nextCursor. */
async function walk(body: Record<string, unknown>, apiKey = s.apiKey): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await list({ ...body, cursor }, apiKey);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as { messages: Listed[]; nextCursor: string | null };
    ids.push(...page.messages.map((m) => m.messageId));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}

async function send(body: Record<string, unknown>, apiKey = s.apiKey): Promise<string> {
  const res = await post('/v1/send', body, apiKey);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
const login = (to: string, extra: Record<string, unknown> = {}) => ({
  templateId: 'login-code',
  to,
  data: { code: '482913' },
  ...extra,
});

const setStatus = (id: string, status: 'sent' | 'bounced' | 'delivered') =>
  h.runtime.deps.db.updateTable('messages').set({ status }).where('id', '=', id).execute();

describe('metadata on sends', () => {
  it('round-trips a send’s metadata through messages/get, recipients/status and the list', async () => {
    const metadata = { userId: 'u_4821', 'order.id': 'A-77', flow: 'password-reset' };
    const id = await send(login('meta-rt@example.com', { metadata }));
    const got = (await post('/v1/messages/get', { messageId: id })).json();
    expect(got.message.metadata).toEqual(metadata);
    const status = (await post('/v1/recipients/status', { email: 'meta-rt@example.com' })).json();
    expect(status.messages[0]).toMatchObject({ messageId: id, metadata });
    const listed = (await list({ metadata: { userId: 'u_4821' } })).json();
    expect(listed.messages).toEqual([
      {
        messageId: id,
        templateId: 'login-code',
        templateVersion: 'v1',
        status: 'queued',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        metadata,
        emailMasked: 'm***@example.com',
      },
    ]);
    // a send without metadata shows {}
    const plain = await send(login('meta-none@example.com'));
    expect((await post('/v1/messages/get', { messageId: plain })).json().message.metadata).toEqual({});
  });

  it('gives a bulk send’s metadata to the job and to each of its messages', async () => {
    await seedContacts(
      h,
      s.tenantId,
      [{ email: 'bulk-meta-1@example.com' }, { email: 'bulk-meta-2@example.com' }],
      'meta-group',
    );
    const res = await post('/v1/contacts/send', {
      templateId: 'reminder',
      groupSlug: 'meta-group',
      data: { intro: 'Hello {{contact.name}}' },
      metadata: { campaign: 'winter-26' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId;
    expect((await post('/v1/contacts/send/get', { jobId })).json().job.metadata).toEqual({
      campaign: 'winter-26',
    });
    const byJob = (await list({ bulkJobId: jobId })).json().messages as Listed[];
    expect(byJob).toHaveLength(2);
    for (const m of byJob) expect(m).toMatchObject({ bulkJobId: jobId, metadata: { campaign: 'winter-26' } });
    // the job of another environment is not found there
    expect((await list({ bulkJobId: jobId }, other.apiKey)).json().messages).toEqual([]);
    const byPair = (await list({ metadata: { campaign: 'winter-26' } })).json().messages as Listed[];
    expect(byPair.map((m) => m.messageId).sort()).toEqual(byJob.map((m) => m.messageId).sort());
    // a pair carries its message's environment (the list by metadata relies on it)
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM message_metadata mm JOIN messages m ON m.id = mm.message_id
       WHERE m.environment_id <> mm.environment_id`.execute(h.runtime.deps.db);
    expect(rows[0]!.n).toBe(0);
    expect(await h.runtime.deps.db.selectFrom('message_metadata').select('key').execute()).not.toHaveLength(
      0,
    );
  });

  it('refuses metadata over its limits with 400 invalid_request at its path, and stores nothing', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const cases: [Record<string, unknown>, string][] = [
      [tooMany, '/metadata'],
      [{ 'has space': 'v' }, '/metadata'],
      [{ ['k'.repeat(41)]: 'v' }, '/metadata'],
      [{ '': 'v' }, '/metadata'],
      [{ note: 'x'.repeat(257) }, '/metadata/note'],
      [{ note: 'line\r\nX-Injected: 1' }, '/metadata/note'],
      [{ note: 'bell\u0007' }, '/metadata/note'],
      [{ note: 'c1\u0085' }, '/metadata/note'],
      [{ note: 'line\u2028separator' }, '/metadata/note'],
      [{ count: 3 }, '/metadata/count'],
      [{ nested: { a: 'b' } }, '/metadata/nested'],
    ];
    for (const [metadata, path] of cases) {
      const res = await post('/v1/send', login('meta-bad@example.com', { metadata }));
      expect(res.statusCode, JSON.stringify(metadata)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      const paths: string[] = res.json().error.details.map((d: { path: string }) => d.path);
      expect(paths.some((p) => p.startsWith(path))).toBe(true);
    }
    // 20 keys of 40 characters with values of 256 are the most it takes
    const most = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [
        `${String(i).padStart(2, '0')}${'k'.repeat(38)}`,
        'v'.repeat(256),
      ]),
    );
    expect((await post('/v1/send', login('meta-bad@example.com', { metadata: most }))).statusCode).toBe(200);
    const stored = await h.runtime.deps.db
      .selectFrom('messages')
      .select('metadata')
      .where('to_email', '=', 'meta-bad@example.com')
      .execute();
    expect(stored.map((r) => r.metadata)).toEqual([most]);
  });

  it('makes metadata part of the request an Idempotency-Key names: other metadata is 409 idempotency_key_reused', async () => {
    const body = login('meta-idem@example.com', { metadata: { userId: 'u_1' } });
    const first = await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: {
        authorization: `Bearer ${s.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': 'meta-1',
      },
      payload: JSON.stringify(body),
    });
    expect(first.statusCode).toBe(200);
    const again = await h.request({
      method: 'POST',
      url: '/v1/send',
      headers: {
        authorization: `Bearer ${s.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': 'meta-1',
      },
      payload: JSON.stringify({ ...body, metadata: { userId: 'u_2' } }),
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('idempotency_key_reused');
    // {} and no metadata are the same request (the same thing is stored)
    const keyed = (payload: unknown) =>
      h.request({
        method: 'POST',
        url: '/v1/send',
        headers: {
          authorization: `Bearer ${s.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'meta-2',
        },
        payload: JSON.stringify(payload),
      });
    const plain = await keyed(login('meta-idem@example.com'));
    const empty = await keyed(login('meta-idem@example.com', { metadata: {} }));
    expect(empty.json()).toEqual({ ...plain.json(), idempotent: true });
  });

  it('keeps environments apart for the same pair: each environment lists its own messages only', async () => {
    const mine = await send(login('pair-a@example.com', { metadata: { shared: 'same-value' } }));
    const theirs = await send(
      login('pair-b@example.com', { metadata: { shared: 'same-value' } }),
      other.apiKey,
    );
    const ids = async (apiKey: string) =>
      ((await list({ metadata: { shared: 'same-value' } }, apiKey)).json().messages as Listed[]).map(
        (m) => m.messageId,
      );
    expect(await ids(s.apiKey)).toEqual([mine]);
    expect(await ids(other.apiKey)).toEqual([theirs]);
  });

  it('deletes a message’s metadata pairs with the message at retention', async () => {
    const id = await send(
      login('meta-retention@example.com', { metadata: { retention: 'r-1', other: 'o' } }),
    );
    await setStatus(id, 'sent');
    const pairs = () =>
      h.runtime.deps.db.selectFrom('message_metadata').select('key').where('message_id', '=', id).execute();
    expect(await pairs()).toHaveLength(2);
    await deleteMessagesBefore(h.runtime.deps.db, new Date(h.clock.now().getTime() + SECOND), 10_000);
    expect(await pairs()).toHaveLength(0);
    expect((await list({ metadata: { retention: 'r-1' } })).json().messages).toEqual([]);
  });
});

describe('POST /v1/messages/list', () => {
  /** The messages of the filter tests: sent in their own environment, a second apart. */
  let f: Scope;
  const ids: Record<string, string> = {};
  let start: Date;

  beforeAll(async () => {
    f = await seedScope(h);
    start = h.clock.now();
    const plan: [string, Record<string, unknown>][] = [
      ['a', login('Alice@Example.com', { metadata: { userId: 'u_a', plan: 'pro' } })],
      ['b', login('bob@example.com', { metadata: { userId: 'u_b', plan: 'pro' } })],
      [
        'c',
        {
          templateId: 'welcome',
          to: 'alice@example.com',
          data: {},
          metadata: { userId: 'u_a', plan: 'free' },
        },
      ],
      ['d', login('carol@example.com')],
      ['e', { templateId: 'welcome', to: 'dave@example.com', data: {} }],
    ];
    for (const [name, body] of plan) {
      ids[name] = await send(body, f.apiKey);
      h.clock.advance(SECOND);
    }
    await setStatus(ids.b!, 'bounced');
    await setStatus(ids.c!, 'sent');
    await setStatus(ids.d!, 'delivered');
  });

  const names = async (body: Record<string, unknown>) => {
    const found = await walk(body, f.apiKey);
    return found.map((id) => Object.keys(ids).find((k) => ids[k] === id) ?? id);
  };

  it('lists the environment’s messages newest first, with nothing of another environment', async () => {
    expect(await names({})).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect((await walk({}, other.apiKey)).some((id) => Object.values(ids).includes(id))).toBe(false);
  });

  it('filters by status, one or several', async () => {
    expect(await names({ status: ['bounced'] })).toEqual(['b']);
    expect(await names({ status: ['queued'] })).toEqual(['e', 'a']);
    expect(await names({ status: ['queued', 'sent', 'delivered'] })).toEqual(['e', 'd', 'c', 'a']);
    expect(await names({ status: ['expired'] })).toEqual([]);
  });

  it('filters by templateId, by recipient (case-insensitive, exact) and by bulk send', async () => {
    expect(await names({ templateId: 'welcome' })).toEqual(['e', 'c']);
    expect(await names({ to: 'ALICE@example.COM' })).toEqual(['c', 'a']);
    expect(await names({ to: 'alice@example.co' })).toEqual([]);
    expect(await names({ bulkJobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5' })).toEqual([]);
  });

  it('filters by creation time: createdAfter inclusive, createdBefore exclusive', async () => {
    const at = (n: number) => new Date(start.getTime() + n * SECOND).toISOString();
    expect(await names({ createdAfter: at(1) })).toEqual(['e', 'd', 'c', 'b']);
    expect(await names({ createdBefore: at(1) })).toEqual(['a']);
    expect(await names({ createdAfter: at(1), createdBefore: at(3) })).toEqual(['c', 'b']);
    // a finer instant than a millisecond: b was created before at(1) + 1 µs, c after
    expect(await names({ createdAfter: at(1).replace('Z', '001Z') })).toEqual(['e', 'd', 'c']);
    expect(await names({ createdBefore: at(1).replace('Z', '001Z') })).toEqual(['b', 'a']);
    // RFC 3339 with another offset names the same instant
    const plus2 = new Date(start.getTime() + 2 * SECOND + 2 * HOUR).toISOString().replace('Z', '+02:00');
    expect(await names({ createdAfter: plus2 })).toEqual(['e', 'd', 'c']);
  });

  it('filters by metadata pairs, all of which must match exactly', async () => {
    expect(await names({ metadata: { userId: 'u_a' } })).toEqual(['c', 'a']);
    expect(await names({ metadata: { userId: 'u_a', plan: 'pro' } })).toEqual(['a']);
    expect(await names({ metadata: { plan: 'pro' } })).toEqual(['b', 'a']);
    expect(await names({ metadata: { plan: 'Pro' } })).toEqual([]);
  });

  it('combines every filter with AND', async () => {
    expect(
      await names({ status: ['queued', 'bounced'], templateId: 'login-code', metadata: { plan: 'pro' } }),
    ).toEqual(['b', 'a']);
    expect(await names({ to: 'alice@example.com', templateId: 'welcome', status: ['sent'] })).toEqual(['c']);
    expect(
      await names({
        to: 'alice@example.com',
        createdAfter: new Date(start.getTime() + SECOND).toISOString(),
      }),
    ).toEqual(['c']);
  });

  it('never answers content or template data', async () => {
    const res = await list({}, f.apiKey);
    expect(res.body).not.toMatch(/482913|subject|"data"|alice@|bob@/i);
  });

  it('pages with a cursor: every message once, in order, also while new messages arrive', async () => {
    const g = await seedScope(h);
    const sentIds: string[] = [];
    for (let i = 0; i < 7; i++) {
      sentIds.push(await send(login(`page-${i}@example.com`), g.apiKey));
      h.clock.advance(SECOND);
    }
    const first = (await list({ pageSize: 3 }, g.apiKey)).json();
    expect(first.messages.map((m: Listed) => m.messageId)).toEqual(sentIds.slice(4).reverse());
    // a message accepted between pages is newer than the cursor: it never shows on a later page
    const late = await send(login('late@example.com'), g.apiKey);
    const rest: string[] = [];
    let cursor: string | null = first.nextCursor;
    while (cursor !== null) {
      const page = (await list({ pageSize: 3, cursor }, g.apiKey)).json();
      rest.push(...page.messages.map((m: Listed) => m.messageId));
      cursor = page.nextCursor;
    }
    expect(rest).toEqual(sentIds.slice(0, 4).reverse());
    expect((await walk({ pageSize: 100 }, g.apiKey))[0]).toBe(late);
    // pageSize above 100 is read as 100; a last page has no cursor
    expect((await list({ pageSize: 1000 }, g.apiKey)).json().nextCursor).toBeNull();
    expect((await list({ pageSize: 8 }, g.apiKey)).json().nextCursor).toBeNull();
  });

  describe('a cursor is used where it was answered, as it was answered, for 24 hours', () => {
    let cursor: string;
    beforeAll(async () => {
      const page = (await list({ pageSize: 1, status: ['queued'] }, f.apiKey)).json();
      cursor = page.nextCursor;
      expect(cursor).toEqual(expect.any(String));
    });

    const refused = async (body: Record<string, unknown>, apiKey = f.apiKey) => {
      const res = await list(body, apiKey);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', details: [{ path: '/cursor' }] });
      return res.json().error.details[0].message as string;
    };

    it('takes it with the same filters, spelled in any order', async () => {
      const res = await list({ status: ['queued'], pageSize: 5, cursor }, f.apiKey);
      expect(res.statusCode).toBe(200);
      expect(res.json().messages.map((m: Listed) => m.messageId)).toEqual([ids.a]);
    });

    it('refuses a tampered cursor', async () => {
      const [body, tag] = cursor.split('.') as [string, string];
      const forged = Buffer.from(
        Buffer.from(body, 'base64url')
          .toString()
          .replace(/^msg_./, 'msg_Z'),
      ).toString('base64url');
      await refused({ status: ['queued'], cursor: `${forged}.${tag}` });
      await refused({
        status: ['queued'],
        cursor: `${body}.${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`,
      });
      await refused({ status: ['queued'], cursor: 'bXNnXzAxTTgxQzFYSkI3WTRLSEIwMUc0QjFQME01' });
      await refused({ status: ['queued'], cursor: '../../etc/passwd' });
    });

    it('refuses it with other filters, or in another environment', async () => {
      await refused({ cursor });
      await refused({ status: ['queued', 'sent'], cursor });
      await refused({ status: ['queued'], templateId: 'login-code', cursor });
      await refused({ status: ['queued'], cursor }, s.apiKey);
    });

    it('refuses it once it is older than 24 hours', async () => {
      h.clock.advance(24 * HOUR + SECOND);
      try {
        expect(await refused({ status: ['queued'], cursor })).toMatch(/expired/);
      } finally {
        h.clock.advance(-(24 * HOUR + SECOND));
      }
    });
  });

  it('names the statuses when a status is not one', async () => {
    const res = await list({ status: ['lost'] });
    expect(res.json().error.details).toEqual([
      {
        path: '/status/0',
        message: expect.stringMatching(/^must be one of "scheduled", "queued", "sending", .*"canceled"$/),
      },
    ]);
  });

  it('refuses bad filters with 400 invalid_request at their path', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ status: [] }, '/status'],
      [{ status: ['lost'] }, '/status/0'],
      [{ status: ['sent', 'sent'] }, '/status'],
      [{ status: 'sent' }, '/status'],
      [{ to: 'not-an-address' }, '/to'],
      [{ to: 'Jane <jane@example.com>' }, '/to'],
      [{ createdAfter: 'yesterday' }, '/createdAfter'],
      [{ createdBefore: '2026-13-01T00:00:00Z' }, '/createdBefore'],
      [{ metadata: {} }, '/metadata'],
      [{ metadata: { a: '1', b: '2', c: '3', d: '4' } }, '/metadata'],
      [{ metadata: { a: 1 } }, '/metadata/a'],
      [{ bulkJobId: 'job_1' }, '/bulkJobId'],
      [{ pageSize: 0 }, '/pageSize'],
      [{ pageSize: 2.5 }, '/pageSize'],
      [{ cursor: '' }, '/cursor'],
      [{ sort: 'asc' }, '/sort'],
    ];
    for (const [body, path] of cases) {
      const res = await list(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(
        res.json().error.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});

runCommonRouteTests('listMessages', () => h);
