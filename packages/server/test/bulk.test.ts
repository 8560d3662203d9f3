// POST /v1/contacts/send, /send/dry-run and /send/get: both body shapes, every error of their
// table, one skip reason per contact, the whole job inside the quota or nothing, the idempotent
// retry, tenants kept apart, and the reputation guard with its admin resume and cancel.

import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteBulkOutcomes } from '../src/db/repositories/bulk.js';
import { claimMessages, recordAttempt, recordAttempts } from '../src/db/repositories/queue.js';
import { sweepOnce } from '../src/delivery/retention.js';
import { OUTCOME_POLICY } from '../src/domain/outcome-policy.js';
import { newId } from '../src/ids.js';
import { addToGroup, seedContacts, setRecipient } from './bulk-helpers.js';

let h: Harness;
let s: Scope;
let other: Scope;
const HOUR = 3_600_000;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 100_000 });
  other = await seedScope(h);
});
afterAll(() => h.close());

const post = (url: string, body: unknown, apiKey = s.apiKey, headers: Record<string, string> = {}) =>
  h.request({
    method: 'POST',
    url,
    headers: { ...bearer(apiKey), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
const bulk = (body: unknown, apiKey = s.apiKey, headers: Record<string, string> = {}) =>
  post('/v1/contacts/send', body, apiKey, headers);
const dryRun = (body: unknown, apiKey = s.apiKey) => post('/v1/contacts/send/dry-run', body, apiKey);
const reference = (extra: Record<string, unknown>, scope: Scope = s) => ({
  projectId: scope.projectId,
  environmentId: scope.environmentId,
  templateId: 'reminder',
  templateData: { intro: 'Hello {{contact.name}}' },
  ...extra,
});
const db = () => h.runtime.deps.db;
const jobMessages = (jobId: string) =>
  db().selectFrom('messages').selectAll().where('bulk_job_id', '=', jobId).orderBy('id').execute();
const usage = async (tenantId: string) =>
  (await db().selectFrom('tenant_usage').select('sent').where('tenant_id', '=', tenantId).executeTakeFirst())
    ?.sent ?? 0;

let tag = 0;
const emails = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${++tag}-${i}@example.com`);

describe('POST /v1/contacts/send', () => {
  it('queues one message per eligible contact of a group, after single sends of its category', async () => {
    const list = emails(3, 'grp');
    const ids = await seedContacts(
      h,
      s.tenantId,
      list.map((email, i) => ({ email, name: `N${i}` })),
      'grp-a',
    );
    const before = await usage(s.tenantId);
    const res = await bulk(reference({ groupSlug: 'grp-a' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ok: true,
      jobId: expect.stringMatching(/^job_[0-9A-Z]{26}$/),
      queued: 3,
      idempotent: false,
    });
    const rows = await jobMessages(body.jobId);
    expect(rows.map((r) => r.contact_id).sort()).toEqual([...ids].sort());
    expect(rows.map((r) => r.to_email).sort()).toEqual([...list].sort());
    for (const r of rows) {
      expect(r.id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
      // notification is 4 for single sends: a bulk message runs after them
      expect(r).toMatchObject({ status: 'queued', priority: 5, category: 'notification', data: null });
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    expect(await usage(s.tenantId)).toBe(before + 3);
  });

  it('names each message of a job with 64 random bits: no id is another’s plus a counter', async () => {
    const list = emails(40, 'rand');
    await seedContacts(
      h,
      s.tenantId,
      list.map((email) => ({ email })),
      'rand',
    );
    const res = await bulk(reference({ groupSlug: 'rand' }));
    expect(res.statusCode, res.body).toBe(200);
    const ids = (await jobMessages(res.json().jobId)).map((r) => r.id);
    expect(ids).toHaveLength(40);
    // msg_ + 10 characters of time (one job: the same) + 16 random ones
    expect(new Set(ids.map((id) => id.slice(4, 14))).size).toBe(1);
    const tails = ids.map((id) => id.slice(14));
    // A shared prefix of 8 or more characters between two random tails has odds of 1 in 2^32.
    for (const [i, a] of tails.entries())
      for (const b of tails.slice(i + 1)) expect(a.slice(0, 8), `${a} ${b}`).not.toBe(b.slice(0, 8));
  });

  it('accepts the tutorial shape: templateId, to (one contact or a list) and data, in the key’s project and environment', async () => {
    const [a, b] = emails(2, 'tut');
    const [idB] = await seedContacts(h, s.tenantId, [{ email: a! }, { email: b! }]).then((ids) => [ids[1]]);
    const one = await bulk({ templateId: 'account-locked', to: a, data: {} });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().queued).toBe(1);
    const many = await bulk({ templateId: 'account-locked', to: [a!.toUpperCase(), idB], data: {} });
    expect(many.json()).toMatchObject({ ok: true, queued: 2 });
    const rows = await jobMessages(many.json().jobId);
    expect(rows.map((r) => r.template_id)).toEqual(['account-locked', 'account-locked']);
    expect(rows[0]!.environment_id).toBe(s.environmentId);
  });

  it('skips each contact for one reason: not found, duplicate, complained, unsubscribed (notifications only), suppressed', async () => {
    const [ok, dup, complained, unsub, cooldown, suppressed] = emails(6, 'why');
    const ids = await seedContacts(
      h,
      s.tenantId,
      [ok!, dup!, complained!, unsub!, cooldown!, suppressed!].map((email) => ({ email })),
      'why',
    );
    const now = h.clock.now();
    await setRecipient(h, s, complained!, { complained_at: now, unsubscribed_at: now });
    await setRecipient(h, s, unsub!, { unsubscribed_at: now });
    await setRecipient(h, s, cooldown!, { cooldown_until: new Date(now.getTime() + HOUR) });
    await setRecipient(h, s, suppressed!, { suppressed_until: new Date(now.getTime() + 24 * HOUR) });
    const body = reference({
      groupSlug: 'why',
      contactIds: [ids[1], dup, 'missing@example.com', newId('ct')],
    });
    const preview = await dryRun(body);
    expect(preview.statusCode, preview.body).toBe(200);
    // dup is named by id, by email and by the group: counted once, skipped twice as a duplicate
    expect(preview.json()).toEqual({
      ok: true,
      eligible: 2,
      skipped: { unsubscribed: 1, complained: 1, suppressed: 2, duplicate: 2, not_found: 2 },
    });
    // a security template ignores the notification unsubscribe
    const security = await dryRun({ ...body, templateId: 'account-locked', templateData: {} });
    expect(security.json()).toMatchObject({ eligible: 3, skipped: { unsubscribed: 0, complained: 1 } });

    const sent = await bulk(body);
    expect(sent.json()).toMatchObject({ queued: 2 });
    const rows = await jobMessages(sent.json().jobId);
    expect(rows.map((r) => r.to_email).sort()).toEqual([ok, dup].sort());
    const job = await post('/v1/contacts/send/get', { jobId: sent.json().jobId });
    expect(job.json().job.skipped).toEqual({
      unsubscribed: 1,
      complained: 1,
      suppressed: 2,
      duplicate: 2,
      not_found: 2,
    });
  });

  it('the dry run writes nothing: no job, no message, no usage', async () => {
    const list = emails(2, 'dry');
    await seedContacts(
      h,
      s.tenantId,
      list.map((email) => ({ email })),
      'dry',
    );
    const before = {
      usage: await usage(s.tenantId),
      jobs: (await db().selectFrom('bulk_jobs').selectAll().execute()).length,
    };
    const res = await dryRun(reference({ groupSlug: 'dry' }));
    expect(res.json()).toMatchObject({ ok: true, eligible: 2 });
    expect(await usage(s.tenantId)).toBe(before.usage);
    expect((await db().selectFrom('bulk_jobs').selectAll().execute()).length).toBe(before.jobs);
    const queued = await db().selectFrom('messages').select('id').where('to_email', 'in', list).execute();
    expect(queued).toEqual([]);
  });

  it('queues the whole job within the quota or answers 403 monthly_quota_exceeded and queues nothing', async () => {
    const small = await seedScope(h, { monthlyLimit: 3 });
    const list = emails(4, 'quota');
    await seedContacts(
      h,
      small.tenantId,
      list.map((email) => ({ email })),
      'four',
    );
    const res = await bulk(reference({ groupSlug: 'four' }, small), small.apiKey);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('monthly_quota_exceeded');
    expect(await usage(small.tenantId)).toBe(0);
    expect(
      await db().selectFrom('messages').select('id').where('tenant_id', '=', small.tenantId).execute(),
    ).toEqual([]);
    expect(
      await db().selectFrom('bulk_jobs').select('id').where('tenant_id', '=', small.tenantId).execute(),
    ).toEqual([]);
    // three fit exactly
    await db()
      .deleteFrom('contact_group_members')
      .where('tenant_id', '=', small.tenantId)
      .where('contact_id', 'in', db().selectFrom('contacts').select('id').where('email', '=', list[3]!))
      .execute();
    const fits = await bulk(reference({ groupSlug: 'four' }, small), small.apiKey);
    expect(fits.json()).toMatchObject({ ok: true, queued: 3 });
    expect(await usage(small.tenantId)).toBe(3);
    // and a single send now finds the quota used up by the same rule
    const single = await post(
      '/v1/send',
      { templateId: 'login-code', to: list[0], data: { code: '123456' } },
      small.apiKey,
    );
    expect(single.json().error.code).toBe('monthly_quota_exceeded');
  });

  it('a retry with the same Idempotency-Key answers the first job and queues nothing more; another request with it is 409', async () => {
    const list = emails(3, 'idem');
    await seedContacts(
      h,
      s.tenantId,
      list.map((email) => ({ email })),
      'idem',
    );
    const key = { 'idempotency-key': `bulk-${tag}` };
    const first = await bulk(reference({ groupSlug: 'idem' }), s.apiKey, key);
    expect(first.json()).toMatchObject({ ok: true, queued: 3, idempotent: false });
    // the same request with its keys in another order
    const again = await bulk({ groupSlug: 'idem', ...reference({}) }, s.apiKey, key);
    expect(again.json()).toEqual({ ok: true, jobId: first.json().jobId, queued: 3, idempotent: true });
    expect((await jobMessages(first.json().jobId)).length).toBe(3);
    const jobs = await db()
      .selectFrom('bulk_jobs')
      .select('id')
      .where('target', '@>', JSON.stringify({ groupSlug: 'idem' }) as never)
      .execute();
    expect(jobs.length).toBe(1);

    const different = await bulk(
      reference({ groupSlug: 'idem', templateId: 'mention', templateData: {} }),
      s.apiKey,
      key,
    );
    expect(different.statusCode).toBe(409);
    expect(different.json().error.code).toBe('idempotency_key_reused');
    const asSingle = await post(
      '/v1/send',
      { templateId: 'login-code', to: list[0], data: { code: '123456' } },
      s.apiKey,
      key,
    );
    expect(asSingle.statusCode).toBe(409);
  });

  it('concurrent retries with one Idempotency-Key queue one job', async () => {
    const list = emails(20, 'race');
    await seedContacts(
      h,
      s.tenantId,
      list.map((email) => ({ email })),
      'race',
    );
    const key = { 'idempotency-key': `race-${tag}` };
    const answers = await Promise.all(
      [1, 2, 3].map(() => bulk(reference({ groupSlug: 'race' }), s.apiKey, key)),
    );
    const jobIds = new Set(answers.map((a) => a.json().jobId));
    expect(jobIds.size).toBe(1);
    expect(answers.filter((a) => a.json().idempotent === false).length).toBe(1);
    expect((await jobMessages([...jobIds][0]!)).length).toBe(20);
  });
});

describe('Idempotency-Key of bulk sends', () => {
  it('is the same request in either shape, in any order and spelling of the recipients', async () => {
    const [a, b] = emails(2, 'shape');
    const [idA] = await seedContacts(h, s.tenantId, [{ email: a! }, { email: b! }]);
    const key = { 'idempotency-key': `shape-${tag}` };
    const first = await bulk(
      {
        projectId: s.projectId,
        environmentId: s.environmentId,
        templateId: 'mention',
        templateData: {},
        contactIds: [idA, b],
      },
      s.apiKey,
      key,
    );
    expect(first.json()).toMatchObject({ queued: 2, idempotent: false });
    const alias = await bulk({ templateId: 'mention', to: [b!.toUpperCase(), idA], data: {} }, s.apiKey, key);
    expect(alias.json()).toEqual({ ok: true, jobId: first.json().jobId, queued: 2, idempotent: true });
  });

  it('a retry that finds the quota used by its own first attempt gets the replay, not 403', async () => {
    const tight = await seedScope(h, { monthlyLimit: 5 });
    const list = emails(4, 'tight');
    await seedContacts(
      h,
      tight.tenantId,
      list.map((email) => ({ email })),
      'tight',
    );
    const key = { 'idempotency-key': 'tight-1' };
    const body = reference({ groupSlug: 'tight' }, tight);
    const answers = await Promise.all([1, 2, 3, 4].map(() => bulk(body, tight.apiKey, key)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().jobId)).size).toBe(1);
    expect(await usage(tight.tenantId)).toBe(4);
  });
});

describe('errors of POST /v1/contacts/send and /send/dry-run', () => {
  const cases: [string, () => Promise<unknown>, number, string, string?][] = [
    [
      'templateData and data together',
      async () => reference({ groupSlug: 'x', data: {} }),
      400,
      'invalid_request',
      '/data',
    ],
    [
      'no template data',
      async () => ({ templateId: 'reminder', groupSlug: 'x' }),
      400,
      'invalid_request',
      '/templateData',
    ],
    [
      'the reference shape without projectId',
      async () => {
        const { projectId: _p, ...body } = reference({ groupSlug: 'x' });
        return body;
      },
      400,
      'invalid_request',
      '/projectId',
    ],
    ['no recipients', async () => reference({}), 400, 'invalid_request', '/contactIds'],
    [
      'a named contact that is neither an id nor an email',
      async () => reference({ contactIds: ['not an address'] }),
      400,
      'invalid_request',
      '/contactIds/0',
    ],
    ['an unknown property', async () => reference({ groupSlug: 'x', html: '<p>' }), 400, 'invalid_request'],
    [
      'a bad group slug',
      async () => reference({ groupSlug: 'Bad Slug' }),
      400,
      'invalid_request',
      '/groupSlug',
    ],
    [
      'another project',
      async () => reference({ groupSlug: 'x', projectId: other.projectId }),
      404,
      'project_not_found',
      '/projectId',
    ],
    [
      'another environment',
      async () => reference({ groupSlug: 'x', environmentId: other.environmentId }),
      404,
      'environment_not_found',
      '/environmentId',
    ],
    [
      'an unknown template',
      async () => reference({ groupSlug: 'x', templateId: 'nope' }),
      404,
      'template_not_found',
    ],
    [
      'an unknown template version',
      async () => reference({ groupSlug: 'x', templateVersion: 'v9' }),
      404,
      'template_version_not_found',
    ],
    [
      'template data that fails the template',
      async () => reference({ groupSlug: 'x', templateData: { intro: 5 } }),
      400,
      'invalid_template_data',
      '/templateData/intro',
    ],
    [
      'a misspelt placeholder',
      async () => reference({ groupSlug: 'x', templateData: { intro: 'Hi {{contact.nme}}' } }),
      400,
      'invalid_template_data',
      '/templateData/intro',
    ],
    [
      'a placeholder in a URL',
      async () =>
        reference({
          groupSlug: 'x',
          templateData: { actionButton: { url: 'https://a.example/?e={{contact.email}}' } },
        }),
      400,
      'invalid_template_data',
      '/templateData/actionButton/url',
    ],
    [
      'an unknown group',
      async () => reference({ groupSlug: 'no-such-group' }),
      404,
      'group_not_found',
      '/groupSlug',
    ],
    [
      'only unknown contacts',
      async () => reference({ contactIds: ['ghost@example.com', newId('ct')] }),
      404,
      'contact_not_found',
      '/contactIds/0',
    ],
  ];
  for (const [what, body, status, code, path] of cases) {
    for (const endpoint of ['/v1/contacts/send', '/v1/contacts/send/dry-run']) {
      it(`${endpoint} answers ${status} ${code} for ${what}`, async () => {
        await addToGroup(h, s.tenantId, 'x', []);
        const res = await post(endpoint, await body());
        expect(res.statusCode, res.body).toBe(status);
        expect(res.json().error.code).toBe(code);
        if (path) expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
      });
    }
  }

  it('answers 403 app_paused and app_blocked for an environment whose sending is stopped', async () => {
    const paused = await seedScope(h);
    await seedContacts(h, paused.tenantId, [{ email: 'p@example.com' }], 'p');
    await h.admin('environments.update', { id: paused.environmentId, sendingStatus: 'paused' });
    const res = await bulk(reference({ groupSlug: 'p' }, paused), paused.apiKey);
    expect(res.json().error.code).toBe('app_paused');
    await h.admin('environments.update', { id: paused.environmentId, sendingStatus: 'blocked' });
    expect((await dryRun(reference({ groupSlug: 'p' }, paused), paused.apiKey)).json().error.code).toBe(
      'app_blocked',
    );
  });
});

describe('tenants are kept apart', () => {
  it("tenant B cannot target tenant A's contacts or group, nor read its jobs", async () => {
    const [a] = emails(1, 'iso');
    const [idA] = await seedContacts(h, s.tenantId, [{ email: a! }], 'iso-a');
    const job = (await bulk(reference({ groupSlug: 'iso-a' }))).json().jobId;
    // by id, by email: not B's contacts
    const byRef = await bulk(reference({ contactIds: [idA, a] }, other), other.apiKey);
    expect(byRef.statusCode).toBe(404);
    expect(byRef.json().error.code).toBe('contact_not_found');
    const byGroup = await bulk(reference({ groupSlug: 'iso-a' }, other), other.apiKey);
    expect(byGroup.json().error.code).toBe('group_not_found');
    const read = await post('/v1/contacts/send/get', { jobId: job }, other.apiKey);
    expect(read.statusCode).toBe(404);
    expect(read.json().error.code).toBe('job_not_found');
    expect(
      await db().selectFrom('messages').select('id').where('tenant_id', '=', other.tenantId).execute(),
    ).toEqual([]);
  });
});

describe('POST /v1/contacts/send/get and the reputation guard', () => {
  async function job(n: number, group: string): Promise<string> {
    await seedContacts(
      h,
      s.tenantId,
      emails(n, group).map((email) => ({ email })),
      group,
    );
    const res = await bulk(reference({ groupSlug: group }));
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId;
  }
  const get = async (jobId: string) => (await post('/v1/contacts/send/get', { jobId })).json();

  /** Claims the job's messages and records `bounces` hard bounces and the rest as sent. */
  async function deliver(jobId: string, bounces: number, sent: number) {
    const now = h.clock.now();
    // Only this job's messages are queued (the tests expire the others first).
    const ours = await claimMessages(db(), {
      now,
      limit: bounces + sent,
      lockedUntil: new Date(now.getTime() + HOUR),
      claimToken: `t${tag++}`,
    });
    const mine = new Set((await jobMessages(jobId)).map((m) => m.id));
    expect(ours.every((m) => mine.has(m.id))).toBe(true);
    const record = (m: (typeof ours)[number], bounce: boolean) => ({
      messageId: m.id,
      claimToken: m.claimToken,
      status: bounce ? ('bounced' as const) : ('sent' as const),
      isAttempt: true,
      nextAttemptAt: null,
      error: bounce ? { code: 'hard_bounce' as const, message: '550 5.1.1' } : null,
      event: { id: newId('evt', now.getTime()), details: {} },
      bounce,
      now,
    });
    for (const m of ours.slice(0, bounces)) await recordAttempt(db(), record(m, true), OUTCOME_POLICY);
    if (sent > 0)
      await recordAttempts(
        db(),
        ours.slice(bounces).map((m) => record(m, false)),
        OUTCOME_POLICY,
      );
  }

  it('shows the job with its counts and its messages by status', async () => {
    const id = await job(3, 'progress');
    expect(await get(id)).toEqual({
      ok: true,
      job: {
        jobId: id,
        status: 'running',
        projectId: s.projectId,
        environmentId: s.environmentId,
        templateId: 'reminder',
        templateVersion: 'v1',
        target: { groupSlug: 'progress', contactCount: 0 },
        queued: 3,
        skipped: { unsubscribed: 0, complained: 0, suppressed: 0, duplicate: 0, not_found: 0 },
        progress: { queued: 3 },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        pausedAt: null,
        canceledAt: null,
        metadata: {},
      },
    });
  });

  it('pauses a job whose hard bounces pass 5% after 200 attempts; an operator resumes it, then cancels it', async () => {
    // Earlier tests' messages are queued too: deliver them out of the way first.
    await db().updateTable('messages').set({ status: 'expired' }).where('status', '=', 'queued').execute();
    const id = await job(300, 'guard');
    // 199 attempts with 11 bounces: under the 200-attempt floor, still running
    await deliver(id, 11, 188);
    expect((await get(id)).job.status).toBe('running');
    // the 200th attempt, a bounce: 12 of 200 = 6% > 5%
    await deliver(id, 1, 0);
    const paused = await get(id);
    expect(paused.job.status).toBe('paused_bounce_rate');
    expect(paused.job.pausedAt).not.toBeNull();
    expect(paused.job.progress).toEqual({ bounced: 12, sent: 188, queued: 100 });
    // its waiting messages are no longer claimed
    const now = h.clock.now();
    expect(
      await claimMessages(db(), {
        now,
        limit: 500,
        lockedUntil: new Date(now.getTime() + HOUR),
        claimToken: 'none',
      }),
    ).toEqual([]);

    const resumed = await h.admin('jobs.resume', { id });
    expect(resumed.job.status).toBe('running');
    expect((await get(id)).job.status).toBe('running');
    const due = await claimMessages(db(), {
      now,
      limit: 10,
      lockedUntil: new Date(now.getTime() + HOUR),
      claimToken: 'again',
    });
    expect(due.length).toBe(10);
    await db()
      .updateTable('messages')
      .set({ status: 'queued', claim_token: null, locked_until: null })
      .where('claim_token', '=', 'again')
      .execute();

    const canceled = await h.admin('jobs.cancel', { id });
    expect(canceled.job).toEqual({ id, status: 'canceled', canceledMessages: 100 });
    const after = await get(id);
    expect(after.job.status).toBe('canceled');
    expect(after.job.progress).toEqual({ bounced: 12, sent: 188, canceled: 100 });
    const audit = await db()
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', id)
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['jobs.cancel', 'jobs.resume']);
  });

  it('keeps a paused message’s retry schedule, and never claims an in-flight message of a canceled job again', async () => {
    await db().updateTable('messages').set({ status: 'expired' }).where('status', '=', 'queued').execute();
    const id = await job(3, 'flight');
    const now = h.clock.now();
    const claimed = await claimMessages(db(), {
      now,
      limit: 3,
      lockedUntil: new Date(now.getTime() + HOUR),
      claimToken: 'flight',
    });
    expect(claimed.length).toBe(3);
    // one deferred with its next retry in 5 minutes, then the job pauses (as if by the guard)
    const retryAt = new Date(now.getTime() + 5 * 60_000);
    const defer = (m: (typeof claimed)[number], claimToken = m.claimToken) =>
      recordAttempts(
        db(),
        [
          {
            messageId: m.id,
            claimToken,
            status: 'deferred',
            isAttempt: true,
            nextAttemptAt: retryAt,
            error: { code: 'temporary_failure', message: '451' },
            event: { id: newId('evt', now.getTime()), details: {} },
            bounce: false,
            now,
          },
        ],
        OUTCOME_POLICY,
      );
    await defer(claimed[0]!);
    // the guard pauses it (one report of a hard bounce over the threshold)
    await noteBulkOutcomes(
      db(),
      [{ jobId: id, attempts: 0, hardBounces: 1 }],
      { minAttempts: 0, maxHardBouncePercent: 5 },
      now,
    );
    expect((await get(id)).job.status).toBe('paused_bounce_rate');
    // a message in flight when the job paused defers afterwards: it is not claimed while paused
    await defer(claimed[1]!);
    h.clock.advance(10 * 60_000);
    const later = h.clock.now();
    const lease = {
      now: later,
      limit: 10,
      lockedUntil: new Date(later.getTime() + HOUR),
      claimToken: 'paused',
    };
    expect(await claimMessages(db(), lease)).toEqual([]);
    await h.admin('jobs.resume', { id });
    // both come back on their own schedule: the parked one and the one that was never parked
    for (const m of claimed.slice(0, 2)) {
      const row = await db()
        .selectFrom('messages')
        .select('next_attempt_at')
        .where('id', '=', m.id)
        .executeTakeFirstOrThrow();
      expect(row.next_attempt_at).toEqual(retryAt);
    }
    // canceled: the message still in flight finishes as deferred, and is never claimed again
    await h.admin('jobs.cancel', { id });
    await defer(claimed[2]!);
    expect(await claimMessages(db(), { ...lease, claimToken: 'canceled' })).toEqual([]);
    const swept = await sweepOnce(h.runtime.deps);
    expect(swept.stoppedJobMessages).toBe(1);
    expect((await get(id)).job.progress).toEqual({ canceled: 3 });
  });

  it('reports a job completed once none of its messages waits', async () => {
    await db().updateTable('messages').set({ status: 'expired' }).where('status', '=', 'queued').execute();
    const id = await job(2, 'done');
    await deliver(id, 0, 2);
    const { job: done } = await get(id);
    expect(done).toMatchObject({ status: 'completed', progress: { sent: 2 } });
    // the operator sees the same record, and there is nothing left to cancel or resume
    expect((await h.admin('jobs.show', { id })).job).toEqual(done);
    await expect(h.admin('jobs.cancel', { id })).rejects.toMatchObject({ code: 'conflict' });
    await expect(h.admin('jobs.resume', { id })).rejects.toMatchObject({ code: 'conflict' });
    expect((await get(id)).job.status).toBe('completed');
  });

  it('answers 404 job_not_found for an unknown job and 400 for a malformed id', async () => {
    const unknown = await post('/v1/contacts/send/get', { jobId: newId('job') });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('job_not_found');
    const bad = await post('/v1/contacts/send/get', { jobId: 'msg_1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
  });
});

for (const id of ['sendToContacts', 'previewSendToContacts', 'getBulkSend'] as const) {
  runCommonRouteTests(id, () => h);
}
