// The suppressions API (DESIGN.md §12): list, add, remove per environment, with reasons
// hard_bounce, complaint, unsubscribed and manual. A manual suppression refuses every category
// like a bounce suppression; remove lifts manual and hard-bounce entries (audited with the state
// before), never a complaint (the operator's) and never an unsubscribe (only resubscribe, seed
// rule 3); the operator's CSV export.
import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/admin.js';
import { claimMessages } from '../src/db/repositories/queue.js';
import { markUnsubscribed, recordComplaint, recordHardBounce } from '../src/db/repositories/recipients.js';
import { suppressionsCsv } from '../src/domain/admin/suppressions.js';
import { BOUNCE_POLICY } from '../src/domain/recipients/bounce-policy.js';

let h: Harness;
let s: Scope;
let other: Scope;
const START = '2026-11-22T10:15:30.123Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h, { monthlyLimit: 10_000 });
  other = await seedScope(h);
});
afterEach(() => h.clock.set(START));
afterAll(() => h.close());

let counter = 0;
const address = (tag: string) => `${tag}-${++counter}@example.com`;
const post = (url: string, body: unknown, scope = s) => postJson(h, scope.apiKey, url, body);
const add = (body: Record<string, unknown>, scope = s) => post('/v1/suppressions/add', body, scope);
const remove = (body: Record<string, unknown>, scope = s) => post('/v1/suppressions/remove', body, scope);
const list = (body: Record<string, unknown> = {}, scope = s) => post('/v1/suppressions/list', body, scope);
const sendTo = (to: string, templateId = 'login-code') =>
  post('/v1/send', { templateId, to, data: templateId === 'login-code' ? { code: '482913' } : {} });
async function sent(to: string): Promise<string> {
  const res = await sendTo(to, 'mention');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
const entriesFor = async (email: string, scope = s) =>
  ((await list({}, scope)).json().suppressions as { email: string; reason: string }[]).filter(
    (e) => e.email === email,
  );
const auditOf = async (action: string) =>
  (await post('/v1/audit/list', { action: [action] })).json().events as {
    details: Record<string, unknown>;
  }[];

describe('POST /v1/suppressions/add', () => {
  it('refuses every category to the address with 403 recipient_suppressed, and the claim of mail already queued', async () => {
    const to = address('manual');
    const queued = await sent(to);
    const res = await add({ email: to.toUpperCase(), note: 'asked support to stop all mail' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      suppression: {
        email: to,
        reason: 'manual',
        createdAt: START,
        until: null,
        note: 'asked support to stop all mail',
      },
    });
    for (const templateId of ['login-code', 'welcome', 'mention']) {
      const refused = await sendTo(to, templateId);
      expect(refused.statusCode, templateId).toBe(403);
      expect(refused.json().error.code).toBe('recipient_suppressed');
    }
    const now = h.clock.now();
    const claimed = await claimMessages(h.runtime.deps.db, {
      now,
      limit: 100,
      lockedUntil: new Date(now.getTime() + MINUTE),
      claimToken: 't',
    });
    expect(claimed.find((m) => m.id === queued)?.recipientRefusal).toBe('recipient_suppressed');
    expect((await post('/v1/recipients/status', { email: to })).json().recipient.state).toBe('suppressed');
    expect((await auditOf('suppression.added'))[0]!.details).toMatchObject({
      emailMasked: 'm***@example.com',
      reason: 'manual',
      previousState: 'clear',
    });
    // the note is the app's words about a person: not in the audit trail
    expect(JSON.stringify(await auditOf('suppression.added'))).not.toContain('asked support');
  });

  it('ends by itself at `until`; adding again keeps when it began and takes the new end and note', async () => {
    const to = address('until');
    await add({ email: to, until: at(HOUR) });
    h.clock.advance(MINUTE);
    const again = await add({ email: to, until: at(2 * HOUR), note: 'second' });
    expect(again.json().suppression).toEqual({
      email: to,
      reason: 'manual',
      createdAt: START,
      until: at(2 * HOUR),
      note: 'second',
    });
    h.clock.set(at(2 * HOUR - 1));
    expect((await sendTo(to)).statusCode).toBe(403);
    h.clock.set(at(2 * HOUR));
    expect((await sendTo(to)).statusCode).toBe(200);
    expect(await entriesFor(to)).toEqual([]);
    // added again after it ended: a new one, begun now
    expect((await add({ email: to })).json().suppression.createdAt).toBe(at(2 * HOUR));
  });

  it('is never shortened by the operator’s suppress, which keeps its note', async () => {
    const to = address('kept');
    await add({ email: to, note: 'GDPR objection' });
    await h.admin('recipients.suppress', { environment: s.environmentId, email: to, days: 2 });
    expect(await entriesFor(to)).toEqual([
      { email: to, reason: 'manual', createdAt: START, until: null, note: 'GDPR objection' },
    ]);
    const timed = address('timed');
    await add({ email: timed, until: at(HOUR) });
    await h.admin('recipients.suppress', { environment: s.environmentId, email: timed, days: 2 });
    expect((await entriesFor(timed))[0]).toMatchObject({ until: at(48 * HOUR) });
    // the app's own add replaces what it set
    await add({ email: timed, until: at(2 * HOUR) });
    expect((await entriesFor(timed))[0]).toMatchObject({ until: at(2 * HOUR) });
  });

  it('refuses a bad address, an until not in the future, and a note with control characters, at their paths', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-address' }, '/email'],
      [{ email: 'a@example.com', until: START }, '/until'],
      [{ email: 'a@example.com', until: 'tomorrow' }, '/until'],
      [{ email: 'a@example.com', note: 'line\nbreak' }, '/note'],
      [{ email: 'a@example.com', note: 'x'.repeat(501) }, '/note'],
      [{ email: 'a@example.com', reason: 'complaint' }, '/reason'],
    ];
    for (const [body, path] of cases) {
      const res = await add(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.details[0].path).toBe(path);
    }
    // worded for people, not as Ajv's pattern and format
    const worded = async (body: Record<string, unknown>) => (await add(body)).json().error.details[0].message;
    expect(await worded({ email: 'a@example.com', note: 'line\nbreak' })).toBe(
      'must not contain control characters or line separators',
    );
    expect(await worded({ email: 'a@example.com', until: '2027-01-01T00:00:00' })).toBe(
      'must be an RFC 3339 time with an offset, such as 2026-12-01T09:00:00Z',
    );
    expect(await entriesFor('a@example.com')).toEqual([]);
  });
});

describe('POST /v1/suppressions/remove', () => {
  it('lifts a manual suppression, audited with the state before', async () => {
    const to = address('lift');
    await add({ email: to });
    const res = await remove({ email: to });
    expect(res.json()).toEqual({ ok: true, removed: ['manual'], remaining: [] });
    expect((await sendTo(to)).statusCode).toBe(200);
    expect((await auditOf('suppression.removed'))[0]!.details).toMatchObject({
      removed: ['manual'],
      previousState: 'suppressed',
    });
  });

  it('lifts a hard-bounce cooldown, listed since the bounce until its end', async () => {
    const to = address('bounced');
    await recordHardBounce(h.runtime.deps.db, await sent(to), h.clock.now(), BOUNCE_POLICY);
    expect(await entriesFor(to)).toEqual([
      { email: to, reason: 'hard_bounce', createdAt: START, until: at(24 * HOUR) },
    ]);
    expect((await sendTo(to)).json().error.code).toBe('recipient_suppressed');
    const res = await remove({ email: to, reason: 'hard_bounce' });
    expect(res.json()).toEqual({ ok: true, removed: ['hard_bounce'], remaining: [] });
    expect((await sendTo(to)).statusCode).toBe(200);
  });

  it('never clears a complaint: 403 suppression_not_removable, and without a reason it lifts only what it may', async () => {
    const to = address('complained');
    await recordComplaint(h.runtime.deps.db, await sent(to), h.clock.now());
    for (const body of [{ email: to }, { email: to, reason: 'complaint' }]) {
      const res = await remove(body);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({
        code: 'suppression_not_removable',
        message: expect.stringMatching(/operator/),
      });
    }
    // an address without one is told so, not that it complained
    const none = await remove({ email: address('never-complained'), reason: 'complaint' });
    expect(none.statusCode).toBe(403);
    expect(none.json().error).toMatchObject({
      code: 'suppression_not_removable',
      message: expect.stringMatching(/This address has no complaint\.$/),
      details: [{ path: '/reason', message: 'has no complaint' }],
    });
    await add({ email: to });
    const both = await remove({ email: to });
    expect(both.json()).toEqual({
      ok: true,
      removed: ['manual'],
      remaining: [{ email: to, reason: 'complaint', createdAt: START, until: null }],
    });
    expect((await sendTo(to)).json().error.code).toBe('recipient_complained');
  });

  it('never clears an unsubscribe, which only resubscribe clears', async () => {
    const to = address('unsub');
    await markUnsubscribed(
      h.runtime.deps.db,
      { environmentId: s.environmentId, tenantId: s.tenantId, email: to },
      h.clock.now(),
    );
    expect(await entriesFor(to)).toEqual([
      { email: to, reason: 'unsubscribed', createdAt: START, until: null },
    ]);
    const res = await remove({ email: to, reason: 'unsubscribed' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(/resubscribe/);
    expect((await sendTo(to, 'mention')).json().error.code).toBe('recipient_unsubscribed');
    h.clock.advance(MINUTE);
    await post('/v1/recipients/resubscribe', { email: to, scope: 'app_notifications' });
    expect(await entriesFor(to)).toEqual([]);
  });

  it('answers 404 suppression_not_found when nothing of the kind stands, and never touches another environment', async () => {
    const to = address('nothing');
    expect((await remove({ email: to })).json().error.code).toBe('suppression_not_found');
    await add({ email: to });
    expect((await remove({ email: to, reason: 'hard_bounce' })).json().error.code).toBe(
      'suppression_not_found',
    );
    expect((await remove({ email: to }, other)).statusCode).toBe(404);
    expect(await entriesFor(to)).toHaveLength(1);
    expect(await entriesFor(to, other)).toEqual([]);
  });
});

describe('POST /v1/suppressions/list', () => {
  it('lists one entry per address and reason, newest first, by reason and time, a page at a time', async () => {
    const env = await seedScope(h);
    const emails = ['p1@example.com', 'p2@example.com', 'p3@example.com'];
    for (const [i, email] of emails.entries()) {
      h.clock.set(at(i * MINUTE));
      await add({ email }, env);
    }
    h.clock.set(at(3 * MINUTE));
    await markUnsubscribed(
      h.runtime.deps.db,
      { environmentId: env.environmentId, tenantId: env.tenantId, email: 'p1@example.com' },
      h.clock.now(),
    );
    const all = (await list({}, env)).json();
    expect(all.suppressions.map((e: { email: string; reason: string }) => `${e.reason}:${e.email}`)).toEqual([
      'unsubscribed:p1@example.com',
      'manual:p3@example.com',
      'manual:p2@example.com',
      'manual:p1@example.com',
    ]);
    expect(all.nextCursor).toBeNull();
    const manual = (
      await list({ reason: ['manual'], createdAfter: at(MINUTE), createdBefore: at(3 * MINUTE) }, env)
    ).json();
    expect(manual.suppressions.map((e: { email: string }) => e.email)).toEqual([
      'p3@example.com',
      'p2@example.com',
    ]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { suppressions: { email: string; reason: string }[]; nextCursor: string | null } = (
        await list({ pageSize: 3, ...(cursor !== null && { cursor }) }, env)
      ).json();
      seen.push(...page.suppressions.map((e) => `${e.reason}:${e.email}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(
      all.suppressions.map((e: { email: string; reason: string }) => `${e.reason}:${e.email}`),
    );
  });

  it('refuses a cursor made by hand, moved to other filters or another environment, with 400 at /cursor', async () => {
    const env = await seedScope(h);
    for (const email of ['c1@example.com', 'c2@example.com']) await add({ email }, env);
    const { nextCursor } = (await list({ pageSize: 1 }, env)).json();
    expect(nextCursor).toEqual(expect.any(String));
    const bad = [
      [{ pageSize: 1, cursor: `${nextCursor.slice(0, -2)}AA` }, env],
      [{ pageSize: 1, cursor: nextCursor, reason: ['manual'] }, env],
      [{ pageSize: 1, cursor: nextCursor }, s],
      [{ cursor: Buffer.from(`${Date.now()}|manual|c1@example.com~1`).toString('base64url') }, env],
    ] as const;
    for (const [body, scope] of bad) {
      const res = await list(body, scope);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details[0].path).toBe('/cursor');
    }
  });
});

describe('mailsvc admin suppressions export', () => {
  it('writes every entry of the environment as CSV, cells quoted and formulas defused', async () => {
    const env = await seedScope(h);
    await add({ email: 'csv@example.com', note: 'said "stop", twice' }, env);
    await add({ email: '=cmd@example.com', note: '@SUM(1)' }, env);
    const result = await h.admin('suppressions.export', { environment: env.environmentId });
    expect(result.suppressions).toHaveLength(2);
    expect(suppressionsCsv(result).split('\r\n')).toEqual([
      'email,reason,createdAt,until,note',
      // one instant: by address, descending
      `csv@example.com,manual,${START},,"said ""stop"", twice"`,
      `'=cmd@example.com,manual,${START},,'@SUM(1)`,
    ]);
  });

  it('is run by the CLI with --environment, CSV by default', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(['suppressions', 'export', '--environment', 'nope'], {
      stdout: (x) => out.push(x),
      stderr: (x) => err.push(x),
    });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/--environment/);
  });
});

runCommonRouteTests('listSuppressions', () => h);
runCommonRouteTests('addSuppression', () => h);
runCommonRouteTests('removeSuppression', () => h);
