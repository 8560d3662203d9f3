// The contacts endpoints (POST /v1/contacts/{upsert,upsert-many,get,list}): every field of the
// record, the write rules (name, exact group sets, custom fields merged key by key), upsert-many's
// all-or-nothing with indexed details, list search, every filter and cursor pagination, status and
// delivery per the key's environment, tenants kept apart, and the security cases every route
// shares (testkit/common-route-tests.ts).

import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markUnsubscribed, recordComplaint, recordHardBounce } from '../src/db/repositories/recipients.js';
import { BOUNCE_POLICY } from '../src/domain/recipients/bounce-policy.js';
import { newId } from '../src/ids.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const post = (url: string, apiKey: string, body: unknown) => postJson(h, apiKey, url, body);
const upsert = (body: unknown, apiKey = s.apiKey) => post('/v1/contacts/upsert', apiKey, body);
const upsertMany = (contacts: unknown, apiKey = s.apiKey) =>
  post('/v1/contacts/upsert-many', apiKey, { contacts });
const get = (emailOrContactId: unknown, apiKey = s.apiKey) =>
  post('/v1/contacts/get', apiKey, { emailOrContactId });
const list = (body: unknown, apiKey = s.apiKey) => post('/v1/contacts/list', apiKey, body);

type Answer = Awaited<ReturnType<typeof post>>;
type Detail = { path: string; message: string };
// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely
type Json = any;

function expectError(res: Answer, status: number, code: string) {
  expect([res.statusCode, res.json().error?.code], res.body).toEqual([status, code]);
  return res.json().error as { message: string; details?: Detail[] };
}
const pathsOf = (res: Answer) => (expectError(res, 400, 'invalid_request').details ?? []).map((d) => d.path);

async function created(body: Record<string, unknown>, apiKey = s.apiKey): Promise<Json> {
  const res = await upsert(body, apiKey);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().contact;
}

const db = () => h.runtime.deps.db;
const HOUR = 3_600_000;

async function sent(to: string, apiKey = s.apiKey): Promise<string> {
  const res = await post('/v1/send', apiKey, { templateId: 'login-code', to, data: { code: '482913' } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
const setMessage = (id: string, values: { status: 'sent' | 'bounced' | 'complained'; sent_at?: Date }) =>
  db().updateTable('messages').set(values).where('id', '=', id).execute();

/** Another environment of the scope's tenant (its own project) with its own key. */
async function siblingScope(of: Scope): Promise<Scope> {
  const { project } = await h.admin('projects.create', { tenant: of.tenantId, name: 'Sibling' });
  const { environment } = await h.admin('environments.create', { project: project.id, name: 'staging' });
  const { key, apiKey } = await h.admin('keys.create', { environment: environment.id });
  return { ...of, projectId: project.id, environmentId: environment.id, keyId: key.id, apiKey };
}

describe('POST /v1/contacts/upsert', () => {
  it('creates a contact and answers every field of the record, email normalised', async () => {
    const now = h.clock.now().toISOString();
    const res = await upsert({
      email: '  Ada.Lovelace@Example.COM ',
      name: 'Ada Lovelace',
      groupSlugs: ['math', 'analytical-engine'],
      customFields: { company: 'Babbage & Co', seats: 2, trial: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      contact: {
        id: expect.stringMatching(/^ct_[0-9A-HJKMNP-TV-Z]{26}$/),
        email: 'ada.lovelace@example.com',
        name: 'Ada Lovelace',
        groupSlugs: ['analytical-engine', 'math'],
        customFields: { company: 'Babbage & Co', seats: 2, trial: false },
        status: 'active',
        createdAt: now,
        updatedAt: now,
        lastEmailedAt: null,
        delivery: { sent: 0, bounced: 0, complained: 0 },
      },
    });
  });

  it('updates the contact of the same normalised email: same id, createdAt kept, updatedAt moved', async () => {
    const first = await created({ email: 'grace@example.com', name: 'Grace' });
    h.clock.advance(1000);
    const again = await created({ email: 'GRACE@example.com' });
    expect(again).toMatchObject({
      id: first.id,
      name: 'Grace',
      createdAt: first.createdAt,
      updatedAt: h.clock.now().toISOString(),
    });
  });

  it('stores IDN domains in punycode, so both spellings are one contact', async () => {
    const a = await created({ email: 'jan@bücher.example' });
    const b = await created({ email: 'jan@xn--bcher-kva.example' });
    expect([a.email, b.id]).toEqual(['jan@xn--bcher-kva.example', a.id]);
  });

  it('leaves the name when absent, clears it with null, and refuses an empty, long or control-character name', async () => {
    await created({ email: 'named@example.com', name: 'Named' });
    expect((await created({ email: 'named@example.com' })).name).toBe('Named');
    expect((await created({ email: 'named@example.com', name: null })).name).toBeNull();
    for (const name of ['', 'x'.repeat(201), 'Evil\r\nBcc: x', 'Pay\u202ePal', 'zero\u200bwidth', 42]) {
      const res = await upsert({ email: 'named@example.com', name });
      expect(pathsOf(res), JSON.stringify(name)).toEqual(['/name']);
    }
    expect((await created({ email: 'named@example.com', name: 'x'.repeat(200) })).name).toHaveLength(200);
  });

  it('merges customFields key by key; a null value deletes the key', async () => {
    await created({ email: 'fields@example.com', customFields: { a: 'one', b: 2, c: true } });
    const c = await created({ email: 'fields@example.com', customFields: { b: 3, c: null, d: 'new' } });
    expect(c.customFields).toEqual({ a: 'one', b: 3, d: 'new' });
    expect((await created({ email: 'fields@example.com' })).customFields).toEqual({
      a: 'one',
      b: 3,
      d: 'new',
    });
    expect((await created({ email: 'fields@example.com', customFields: { zz: null } })).customFields).toEqual(
      {
        a: 'one',
        b: 3,
        d: 'new',
      },
    );
  });

  it('refuses custom field keys that cannot be placeholders and values that are not a string ≤ 1000, number, boolean or null', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ '1st': 'x' }, '/customFields/1st'],
      [{ 'with space': 'x' }, '/customFields/with space'],
      [{ 'a.b': 'x' }, '/customFields/a.b'],
      [{ [`k${'x'.repeat(64)}`]: 'x' }, `/customFields/k${'x'.repeat(64)}`],
      [{ '': 'x' }, '/customFields/'],
      [{ nested: { a: 1 } }, '/customFields/nested'],
      [{ list: [1] }, '/customFields/list'],
      [{ long: 'x'.repeat(1001) }, '/customFields/long'],
    ];
    for (const [customFields, path] of bad) {
      const res = await upsert({ email: 'badfields@example.com', customFields });
      expect(pathsOf(res), path).toEqual([path]);
    }
    // 1e400 parses as Infinity: not a finite number.
    const infinite = await upsert('{"email":"badfields@example.com","customFields":{"n":1e400}}');
    expect(pathsOf(infinite)).toEqual(['/customFields/n']);
    const ok = await created({
      email: 'goodfields@example.com',
      customFields: { _x: 'x'.repeat(1000), [`K${'x'.repeat(63)}`]: -1.5, 'a-b_c': true },
    });
    expect(Object.keys(ok.customFields)).toHaveLength(3);
  });

  it('allows at most 50 custom fields after the merge: 400 /customFields and nothing changed', async () => {
    const fields = (from: number, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${from + i}`, i]));
    expect(pathsOf(await upsert({ email: 'many@example.com', customFields: fields(0, 51) }))).toEqual([
      '/customFields',
    ]);
    await created({ email: 'many@example.com', name: 'Before', customFields: fields(0, 40) });
    const over = await upsert({ email: 'many@example.com', name: 'After', customFields: fields(40, 11) });
    expect(pathsOf(over)).toEqual(['/customFields']);
    const kept = (await get('many@example.com')).json().contact;
    expect([kept.name, Object.keys(kept.customFields).length]).toEqual(['Before', 40]);
    // Deleting one key in the same write makes room: exactly 50.
    const exact = await created({ email: 'many@example.com', customFields: { ...fields(40, 11), f0: null } });
    expect(Object.keys(exact.customFields)).toHaveLength(50);
  });

  it('makes groupSlugs the exact set of groups, creating missing groups named after their slug; absent leaves them', async () => {
    const c = await created({ email: 'groups@example.com', groupSlugs: ['b-team', 'a-team'] });
    expect(c.groupSlugs).toEqual(['a-team', 'b-team']);
    const groups = await db()
      .selectFrom('contact_groups')
      .select(['slug', 'name'])
      .where('tenant_id', '=', s.tenantId)
      .where('slug', 'in', ['a-team', 'b-team'])
      .orderBy('slug')
      .execute();
    expect(groups).toEqual([
      { slug: 'a-team', name: 'a-team' },
      { slug: 'b-team', name: 'b-team' },
    ]);
    expect(
      (await created({ email: 'groups@example.com', groupSlugs: ['c-team', 'a-team'] })).groupSlugs,
    ).toEqual(['a-team', 'c-team']);
    expect((await created({ email: 'groups@example.com', name: 'G' })).groupSlugs).toEqual([
      'a-team',
      'c-team',
    ]);
    expect((await created({ email: 'groups@example.com', groupSlugs: [] })).groupSlugs).toEqual([]);
    // The groups stay when their last member leaves.
    expect(
      await db().selectFrom('contact_groups').select('slug').where('slug', '=', 'b-team').executeTakeFirst(),
    ).toBeDefined();
  });

  it('refuses a bad slug, a slug named twice and more than 100 groups', async () => {
    for (const groupSlugs of [
      ['Bad Slug'],
      ['-x'],
      ['a', 'a'],
      Array.from({ length: 101 }, (_, i) => `g${i}`),
    ]) {
      const res = await upsert({ email: 'slugs@example.com', groupSlugs });
      expect(pathsOf(res)[0], JSON.stringify(groupSlugs).slice(0, 40)).toMatch(/^\/groupSlugs/);
    }
  });

  it('refuses a body without a valid email, and unknown properties, with 400 invalid_request and details', async () => {
    expect(pathsOf(await upsert({}))).toEqual(['/email']);
    expect(pathsOf(await upsert({ email: 'not an address' }))).toEqual(['/email']);
    expect(pathsOf(await upsert({ email: 'a@b' }))).toEqual(['/email']);
    expect(pathsOf(await upsert({ email: 'x@example.com', id: 'ct_x', tags: [] })).sort()).toEqual([
      '/id',
      '/tags',
    ]);
  });
});

describe('POST /v1/contacts/upsert-many', () => {
  it('creates and updates in one call, answering the ids in request order', async () => {
    const existing = await created({ email: 'many-1@example.com', customFields: { a: 1 } });
    const res = await upsertMany([
      { email: 'many-2@example.com', name: 'Two', groupSlugs: ['batch'] },
      { email: 'Many-1@example.com', customFields: { b: 2 } },
      { email: 'many-3@example.com' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ok: true,
      created: 2,
      updated: 1,
      contactIds: [expect.any(String), existing.id, expect.any(String)],
    });
    expect((await get(existing.id)).json().contact.customFields).toEqual({ a: 1, b: 2 });
    expect((await get(body.contactIds[0])).json().contact).toMatchObject({
      name: 'Two',
      groupSlugs: ['batch'],
    });
  });

  it('writes nothing when any item is invalid and reports every problem with its index', async () => {
    const res = await upsertMany([
      { email: 'aon-0@example.com' },
      { email: 'nope' },
      { email: 'aon-2@example.com', name: '' },
      { email: 'aon-3@example.com', customFields: { 'bad key': 1 } },
      { email: 'aon-4@example.com', extra: true },
    ]);
    expect(pathsOf(res).sort()).toEqual([
      '/contacts/1/email',
      '/contacts/2/name',
      '/contacts/3/customFields/bad key',
      '/contacts/4/extra',
    ]);
    const stored = await db().selectFrom('contacts').select('id').where('email', 'like', 'aon-%').execute();
    expect(stored).toEqual([]);
  });

  it('refuses the same contact twice in one call with a detail at the later index', async () => {
    const res = await upsertMany([
      { email: 'twice@example.com' },
      { email: 'other@example.com' },
      { email: ' TWICE@example.com' },
    ]);
    const error = expectError(res, 400, 'invalid_request');
    expect(error.details).toEqual([
      { path: '/contacts/2/email', message: 'is the same contact as /contacts/0/email' },
    ]);
    expect((await get('twice@example.com')).statusCode).toBe(404);
  });

  it("reports the same contact twice together with the schema's problems, in one answer, by index", async () => {
    const res = await upsertMany([
      { email: 'both-1@example.com' },
      { email: 'both-2@example.com', name: 42 },
      { email: 'BOTH-1@example.com' },
    ]);
    expect(expectError(res, 400, 'invalid_request').details).toEqual([
      { path: '/contacts/1/name', message: 'must be string,null' },
      { path: '/contacts/2/email', message: 'is the same contact as /contacts/0/email' },
    ]);
  });

  it('rolls the whole call back when one merge is over 50 custom fields', async () => {
    const fields = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));
    await created({ email: 'full@example.com', customFields: fields(45, 'x') });
    const res = await upsertMany([
      { email: 'rollback-new@example.com', groupSlugs: ['rollback'] },
      { email: 'full@example.com', customFields: fields(6, 'y') },
    ]);
    expect(expectError(res, 400, 'invalid_request').details).toEqual([
      { path: '/contacts/1/customFields', message: expect.stringContaining('50') },
    ]);
    expect((await get('rollback-new@example.com')).statusCode).toBe(404);
    expect(Object.keys((await get('full@example.com')).json().contact.customFields)).toHaveLength(45);
  });

  it('takes 1 to 1,000 contacts', async () => {
    expect(pathsOf(await upsertMany([]))).toEqual(['/contacts']);
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ email: `x${i}@example.com` }));
    expect(pathsOf(await upsertMany(tooMany))).toEqual(['/contacts']);
    const thousand = Array.from({ length: 1000 }, (_, i) => ({ email: `thousand-${i}@example.com` }));
    const res = await upsertMany(thousand);
    expect(res.json()).toMatchObject({ created: 1000, updated: 0 });
    expect(new Set(res.json().contactIds).size).toBe(1000);
  });
});

describe('POST /v1/contacts/get', () => {
  it('finds a contact by its id or by its email in any case', async () => {
    const c = await created({ email: 'findme@example.com', name: 'Find Me' });
    expect((await get(c.id)).json()).toEqual({ ok: true, contact: c });
    expect((await get(' FindMe@Example.com')).json()).toEqual({ ok: true, contact: c });
  });

  it('answers 404 contact_not_found for an unknown id or email and an id-shaped value that is not one', async () => {
    for (const ref of [newId('ct'), 'nobody@example.com', 'ct_nope', 'ct_01M81C1XJB7Y4KHB01G4B1P0M5x']) {
      const error = expectError(await get(ref), 404, 'contact_not_found');
      expect(error.details).toEqual([{ path: '/emailOrContactId', message: expect.any(String) }]);
    }
  });

  it('answers 400 invalid_request for a value that is neither an id nor an email', async () => {
    for (const body of [
      {},
      { emailOrContactId: '' },
      { emailOrContactId: 'no at sign' },
      { emailOrContactId: 7 },
    ]) {
      const res = await post('/v1/contacts/get', s.apiKey, body);
      expect(pathsOf(res), JSON.stringify(body)).toEqual(['/emailOrContactId']);
    }
  });

  it("reports status for the key's environment: complained in one, unsubscribed in another, active in a third", async () => {
    const email = 'stateful@example.com';
    const c = await created({ email });
    const b = await siblingScope(s);
    const other = await siblingScope(s);
    await recordComplaint(db(), await sent(email), h.clock.now());
    await markUnsubscribed(
      db(),
      { environmentId: b.environmentId, tenantId: s.tenantId, email },
      h.clock.now(),
    );
    expect((await get(c.id)).json().contact.status).toBe('complained');
    expect((await get(c.id, b.apiKey)).json().contact.status).toBe('unsubscribed');
    expect((await get(c.id, other.apiKey)).json().contact.status).toBe('active');
  });

  it('reports cooldown and suppressed from hard bounces, by the clock', async () => {
    const email = 'bouncing@example.com';
    const c = await created({ email });
    await recordHardBounce(db(), await sent(email), h.clock.now(), BOUNCE_POLICY);
    expect((await get(c.id)).json().contact.status).toBe('cooldown');
    await h.admin('recipients.suppress', { environment: s.environmentId, email, days: 2 });
    expect((await get(c.id)).json().contact.status).toBe('suppressed');
    h.clock.advance(3 * 24 * HOUR);
    expect((await get(c.id)).json().contact.status).toBe('active');
  });

  it("counts delivery in the key's environment and takes lastEmailedAt from any environment of the tenant", async () => {
    const email = 'delivered@example.com';
    const c = await created({ email });
    const b = await siblingScope(s);
    const stranger = await seedScope(h);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(await sent(email));
      h.clock.advance(1000);
    }
    await setMessage(ids[0]!, { status: 'sent', sent_at: h.clock.now() });
    await setMessage(ids[1]!, { status: 'bounced', sent_at: h.clock.now() });
    await setMessage(ids[2]!, { status: 'complained', sent_at: h.clock.now() });
    const mine = (await get(c.id)).json().contact;
    expect(mine.delivery).toEqual({ sent: 3, bounced: 1, complained: 1 });
    h.clock.advance(60_000);
    await sent(email, b.apiKey);
    const latestInB = h.clock.now().toISOString();
    h.clock.advance(60_000);
    await sent(email, stranger.apiKey); // another tenant: not this contact's history
    const again = (await get(c.id)).json().contact;
    expect(again.lastEmailedAt).toBe(latestInB);
    expect(again.delivery).toEqual({ sent: 3, bounced: 1, complained: 1 });
    expect((await get(c.id, b.apiKey)).json().contact.delivery).toEqual({
      sent: 0,
      bounced: 0,
      complained: 0,
    });
  });
});

describe('tenants are kept apart', () => {
  it("lets tenant B neither read, list nor modify tenant A's contacts", async () => {
    const b = await seedScope(h);
    const a = await created({ email: 'private@example.com', name: 'A', customFields: { secret: 'a' } });
    expectError(await get(a.id, b.apiKey), 404, 'contact_not_found');
    expectError(await get('private@example.com', b.apiKey), 404, 'contact_not_found');
    expect((await list({}, b.apiKey)).json().contacts).toEqual([]);
    expect((await list({ search: 'private' }, b.apiKey)).json().contacts).toEqual([]);
    // B's upsert of the same address makes B's own contact.
    const mine = await created({ email: 'private@example.com', name: 'B', groupSlugs: ['b-only'] }, b.apiKey);
    expect(mine.id).not.toBe(a.id);
    expect(
      (await upsertMany([{ email: 'private@example.com', name: 'B2' }], b.apiKey)).json().contactIds,
    ).toEqual([mine.id]);
    expect((await get(a.id)).json().contact).toMatchObject({
      name: 'A',
      customFields: { secret: 'a' },
      groupSlugs: [],
    });
    // A filter naming A's environment from B's key matches nothing of B's (no leak of A's mail).
    await sent('private@example.com');
    const filtered = await list(
      { filters: [{ field: 'environment', op: 'eq', value: s.environmentId }] },
      b.apiKey,
    );
    expect(filtered.json().contacts).toEqual([]);
    expect((await get(mine.id, b.apiKey)).json().contact.lastEmailedAt).toBeNull();
  });
});

describe('POST /v1/contacts/list', () => {
  /** A tenant of its own, so the list holds only what a test puts there. */
  let t: Scope;
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await seedScope(h);
    ids = {};
    // A millisecond apart: ids (and so the list) in this order.
    for (const body of [
      { email: 'alice@acme.example', name: 'Alice Smith', groupSlugs: ['staff', 'beta'] },
      { email: 'bob@acme.example', name: 'Bob Jones', groupSlugs: ['staff'] },
      { email: 'carol@other.example', name: '100% Carol', groupSlugs: ['beta'] },
      { email: 'dan_under@other.example', name: null },
      { email: 'erin@other.example', name: 'Erin' },
    ]) {
      h.clock.advance(1);
      ids[body.email.split(/[@_]/)[0]!] = (await created(body, t.apiKey)).id;
    }
  });

  const names = async (body: Record<string, unknown>, apiKey = t.apiKey): Promise<string[]> => {
    const res = await list(body, apiKey);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().contacts.map((c: { email: string }) => c.email.split(/[@_]/)[0]);
  };

  it('lists every contact in id order, each as the full record, with nextCursor null on the last page', async () => {
    const res = await list({}, t.apiKey);
    expect(res.json().nextCursor).toBeNull();
    expect(res.json().contacts.map((c: { id: string }) => c.id)).toEqual(Object.values(ids).sort());
    expect(res.json().contacts[0]).toEqual((await get(res.json().contacts[0].id, t.apiKey)).json().contact);
  });

  it('searches a case-insensitive substring of email or name, % and _ matching themselves', async () => {
    expect(await names({ search: 'ACME' })).toEqual(['alice', 'bob']);
    expect(await names({ search: 'jones' })).toEqual(['bob']);
    expect(await names({ search: '%' })).toEqual(['carol']);
    expect(await names({ search: '_' })).toEqual(['dan']);
    expect(await names({ search: 'no-such-text' })).toEqual([]);
    expect(await names({ search: '' })).toHaveLength(5);
  });

  it('filters by group: eq, neq, in', async () => {
    expect(await names({ filters: [{ field: 'group', op: 'eq', value: 'staff' }] })).toEqual([
      'alice',
      'bob',
    ]);
    expect(await names({ filters: [{ field: 'group', op: 'neq', value: 'staff' }] })).toEqual([
      'carol',
      'dan',
      'erin',
    ]);
    expect(await names({ filters: [{ field: 'group', op: 'in', value: ['beta', 'nope'] }] })).toEqual([
      'alice',
      'carol',
    ]);
  });

  it("filters by status and the suppressed, unsubscribed and complained flags, for the key's environment", async () => {
    const at = h.clock.now();
    await markUnsubscribed(
      db(),
      { environmentId: t.environmentId, tenantId: t.tenantId, email: 'bob@acme.example' },
      at,
    );
    await h.admin('recipients.suppress', {
      environment: t.environmentId,
      email: 'carol@other.example',
      days: 5,
    });
    await markUnsubscribed(
      db(),
      { environmentId: t.environmentId, tenantId: t.tenantId, email: 'erin@other.example' },
      at,
    );
    await recordComplaint(db(), await sent('erin@other.example', t.apiKey), at);
    const status = (op: string, value: unknown) => names({ filters: [{ field: 'status', op, value }] });
    expect(await status('eq', 'active')).toEqual(['alice', 'dan']);
    expect(await status('eq', 'unsubscribed')).toEqual(['bob']);
    expect(await status('eq', 'complained')).toEqual(['erin']);
    expect(await status('eq', 'suppressed')).toEqual(['carol']);
    expect(await status('neq', 'active')).toEqual(['bob', 'carol', 'erin']);
    expect(await status('in', ['unsubscribed', 'suppressed'])).toEqual(['bob', 'carol']);
    expect(await status('in', ['active', 'complained'])).toEqual(['alice', 'dan', 'erin']);
    const flag = (field: string, value: boolean) => names({ filters: [{ field, op: 'eq', value }] });
    expect(await flag('suppressed', true)).toEqual(['carol']);
    expect(await flag('suppressed', false)).toEqual(['alice', 'bob', 'dan', 'erin']);
    // Facts, not the reported status: erin complained and is unsubscribed too.
    expect(await flag('unsubscribed', true)).toEqual(['bob', 'erin']);
    expect(await flag('unsubscribed', false)).toEqual(['alice', 'carol', 'dan']);
    expect(await flag('complained', true)).toEqual(['erin']);
    expect(await flag('complained', false)).toEqual(['alice', 'bob', 'carol', 'dan']);
    // Another environment of the tenant sees none of it.
    const sibling = await siblingScope(t);
    expect(
      await names({ filters: [{ field: 'status', op: 'eq', value: 'active' }] }, sibling.apiKey),
    ).toHaveLength(5);
    // Cleared for the tests below.
    await db().deleteFrom('recipients').where('tenant_id', '=', t.tenantId).execute();
    await db().deleteFrom('message_events').where('tenant_id', '=', t.tenantId).execute();
    await db().deleteFrom('messages').where('tenant_id', '=', t.tenantId).execute();
  });

  it('filters by the project and environment a contact was emailed from, and by lastEmailedAt', async () => {
    const sibling = await siblingScope(t);
    const t0 = h.clock.now();
    await sent('alice@acme.example', t.apiKey);
    h.clock.advance(HOUR);
    const t1 = h.clock.now();
    await sent('bob@acme.example', sibling.apiKey);
    h.clock.advance(HOUR);
    await sent('alice@acme.example', sibling.apiKey);
    const by = (field: string, op: string, value: unknown) => names({ filters: [{ field, op, value }] });
    expect(await by('environment', 'eq', t.environmentId)).toEqual(['alice']);
    expect(await by('environment', 'eq', sibling.environmentId)).toEqual(['alice', 'bob']);
    expect(await by('environment', 'neq', sibling.environmentId)).toEqual(['carol', 'dan', 'erin']);
    expect(await by('environment', 'in', [t.environmentId, sibling.environmentId])).toEqual(['alice', 'bob']);
    expect(await by('project', 'eq', t.projectId)).toEqual(['alice']);
    expect(await by('project', 'neq', t.projectId)).toEqual(['bob', 'carol', 'dan', 'erin']);
    expect(await by('project', 'in', [sibling.projectId])).toEqual(['alice', 'bob']);
    expect(await by('project', 'eq', `prj_${'0'.repeat(26)}`)).toEqual([]);
    // lastEmailedAt: alice t0 and t0+2h, bob t1; the never emailed match neither.
    expect(await by('lastEmailedAt', 'after', t0.toISOString())).toEqual(['alice', 'bob']);
    expect(await by('lastEmailedAt', 'after', t1.toISOString())).toEqual(['alice']);
    expect(await by('lastEmailedAt', 'before', new Date(t1.getTime() + 1).toISOString())).toEqual(['bob']);
    expect(await by('lastEmailedAt', 'before', t0.toISOString())).toEqual([]);
    expect(
      await names({
        filters: [
          { field: 'environment', op: 'eq', value: sibling.environmentId },
          { field: 'group', op: 'eq', value: 'beta' },
          { field: 'status', op: 'eq', value: 'active' },
        ],
        search: 'acme',
      }),
    ).toEqual(['alice']);
  });

  it('pages by cursor: every contact once, none skipped, a contact added between pages shows once on a later page', async () => {
    const p1 = (await list({ pageSize: 2 }, t.apiKey)).json();
    expect(p1.contacts).toHaveLength(2);
    h.clock.advance(1000);
    const late = await created({ email: 'late@acme.example' }, t.apiKey);
    const seen = [...p1.contacts.map((c: { id: string }) => c.id)];
    let cursor = p1.nextCursor;
    while (cursor) {
      const page = (await list({ pageSize: 2, cursor }, t.apiKey)).json();
      seen.push(...page.contacts.map((c: { id: string }) => c.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([...Object.values(ids).sort(), late.id]);
    // Filters and search apply across pages.
    const q = { search: 'acme', pageSize: 1 };
    const a = (await list(q, t.apiKey)).json();
    const b = (await list({ ...q, cursor: a.nextCursor }, t.apiKey)).json();
    const c = (await list({ ...q, cursor: b.nextCursor }, t.apiKey)).json();
    expect([...a.contacts, ...b.contacts, ...c.contacts].map((x: { id: string }) => x.id)).toEqual([
      ids.alice,
      ids.bob,
      late.id,
    ]);
    expect(c.nextCursor).toBeNull();
  });

  it('defaults pageSize to 50 and reads a pageSize above 200 as 200', async () => {
    const big = await seedScope(h);
    const res = await upsertMany(
      Array.from({ length: 230 }, (_, i) => ({ email: `bulk-${String(i).padStart(3, '0')}@example.com` })),
      big.apiKey,
    );
    expect(res.statusCode).toBe(200);
    expect((await list({}, big.apiKey)).json().contacts).toHaveLength(50);
    const clamped = (await list({ pageSize: 100_000 }, big.apiKey)).json();
    expect(clamped.contacts).toHaveLength(200);
    expect(
      (await list({ pageSize: 100_000, cursor: clamped.nextCursor }, big.apiKey)).json().contacts,
    ).toHaveLength(30);
  });

  it('refuses a malformed, forged, moved or stale cursor with 400 at /cursor', async () => {
    const other = Buffer.from('msg_01M81C1XJB7Y4KHB01G4B1P0M5').toString('base64url');
    const padded = `${Buffer.from(ids.alice!).toString('base64')}`;
    // an unsigned id, as cursors of this list were before they were signed
    const bare = Buffer.from(ids.alice!).toString('base64url');
    for (const cursor of ['garbage!', 'abc', other, padded, bare, `${bare}x`]) {
      expect(pathsOf(await list({ cursor }, t.apiKey)), cursor).toEqual(['/cursor']);
    }
    // a real cursor: with another search or filters, in another environment, changed, or a day old
    const answered = (await list({ search: 'acme', pageSize: 1 }, t.apiKey)).json().nextCursor as string;
    expect((await list({ search: 'acme', pageSize: 1, cursor: answered }, t.apiKey)).statusCode).toBe(200);
    expect(pathsOf(await list({ search: 'acm', pageSize: 1, cursor: answered }, t.apiKey))).toEqual([
      '/cursor',
    ]);
    const elsewhere = await seedScope(h);
    expect(pathsOf(await list({ search: 'acme', pageSize: 1, cursor: answered }, elsewhere.apiKey))).toEqual([
      '/cursor',
    ]);
    const [body, tag] = answered.split('.') as [string, string];
    const forged = Buffer.from(Buffer.from(body, 'base64url').toString().replace(/^ct_./, 'ct_Z')).toString(
      'base64url',
    );
    expect(pathsOf(await list({ search: 'acme', cursor: `${forged}.${tag}` }, t.apiKey))).toEqual([
      '/cursor',
    ]);
    h.clock.advance(24 * 3_600_000 + 1000);
    try {
      expect(pathsOf(await list({ search: 'acme', pageSize: 1, cursor: answered }, t.apiKey))).toEqual([
        '/cursor',
      ]);
    } finally {
      h.clock.advance(-(24 * 3_600_000 + 1000));
    }
    expect(pathsOf(await list({ cursor: '' }, t.apiKey))).toEqual(['/cursor']);
    // null, as the last page answers it, is the first page
    const first = await list({ cursor: null, pageSize: 1 }, t.apiKey);
    expect(first.statusCode).toBe(200);
    expect(first.json().contacts).toEqual((await list({ pageSize: 1 }, t.apiKey)).json().contacts);
  });

  it('refuses a wrong field, op or value of a filter at its path, more than 20 clauses and a bad pageSize', async () => {
    const f = (clause: unknown) => list({ filters: [clause] }, t.apiKey);
    expect(pathsOf(await f({ field: 'status', op: 'before', value: 'active' }))).toEqual(['/filters/0/op']);
    expect(pathsOf(await f({ field: 'status', op: 'eq', value: 'gone' }))).toEqual(['/filters/0/value']);
    expect(pathsOf(await f({ field: 'status', op: 'in', value: 'active' }))).toEqual(['/filters/0/value']);
    expect(pathsOf(await f({ field: 'status', op: 'in', value: [] }))).toEqual(['/filters/0/value']);
    expect(pathsOf(await f({ field: 'group', op: 'eq', value: 'Not A Slug' }))).toEqual(['/filters/0/value']);
    expect(pathsOf(await f({ field: 'project', op: 'eq', value: 'env_x' }))).toEqual(['/filters/0/value']);
    expect(pathsOf(await f({ field: 'lastEmailedAt', op: 'eq', value: '2026-01-01T00:00:00Z' }))).toEqual([
      '/filters/0/op',
    ]);
    expect(pathsOf(await f({ field: 'lastEmailedAt', op: 'after', value: 'yesterday' }))).toEqual([
      '/filters/0/value',
    ]);
    expect(pathsOf(await f({ field: 'suppressed', op: 'eq', value: 'yes' }))).toEqual(['/filters/0/value']);
    expect(pathsOf(await f({ field: 'complained', op: 'neq', value: true }))).toEqual(['/filters/0/op']);
    expect(pathsOf(await f({ field: 'colour', op: 'eq', value: 'red' }))).toEqual(['/filters/0/field']);
    expect(pathsOf(await f({ op: 'eq', value: 'red' }))).toEqual(['/filters/0/field']);
    expect(pathsOf(await f({ field: 'group', op: 'eq', value: 'x', extra: 1 }))).toEqual([
      '/filters/0/extra',
    ]);
    const many = Array.from({ length: 21 }, () => ({ field: 'complained', op: 'eq', value: false }));
    expect(pathsOf(await list({ filters: many }, t.apiKey))).toEqual(['/filters']);
    expect((await list({ filters: many.slice(1) }, t.apiKey)).statusCode).toBe(200);
    for (const pageSize of [0, -1, 2.5, '10'])
      expect(pathsOf(await list({ pageSize }, t.apiKey)), String(pageSize)).toEqual(['/pageSize']);
    expect(pathsOf(await list({ search: 'x'.repeat(201) }, t.apiKey))).toEqual(['/search']);
    expect(pathsOf(await list({ sort: 'email' }, t.apiKey))).toEqual(['/sort']);
  });
});

describe('logs', () => {
  it('never carry a full contact address', async () => {
    await created({ email: 'logged-person@example.com', name: 'Logged' });
    await get('logged-person@example.com');
    await list({ search: 'logged-person' });
    await upsert({ email: 'logged-person@example.com', name: '' });
    expect(h.logs.join('\n')).not.toContain('logged-person@example.com');
  });
});

for (const id of ['upsertContact', 'upsertContacts', 'getContact', 'listContacts'] as const) {
  runCommonRouteTests(id, () => h);
}
