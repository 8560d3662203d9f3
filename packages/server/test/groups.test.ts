// The contact group endpoints (POST /v1/contacts/groups/{upsert,list,delete,add,remove}): every
// field and error of their tables, slug derivation, upsert by slug, memberships by contact id or
// email (all or nothing), and tenants kept apart. Contacts are inserted directly: the contacts
// endpoints are another change.

import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import {
  bearer,
  createHarness,
  type Harness,
  postJson,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const post = (url: string, apiKey: string, body: unknown) => postJson(h, apiKey, url, body);
const upsert = (body: unknown, apiKey = s.apiKey) => post('/v1/contacts/groups/upsert', apiKey, body);
const list = (apiKey = s.apiKey) => post('/v1/contacts/groups/list', apiKey, {});
const remove = (groupSlug: unknown, apiKey = s.apiKey) =>
  post('/v1/contacts/groups/delete', apiKey, { groupSlug });
const add = (groupSlug: unknown, contactIds: unknown, apiKey = s.apiKey) =>
  post('/v1/contacts/groups/add', apiKey, { groupSlug, contactIds });
const removeMembers = (groupSlug: unknown, contactIds: unknown, apiKey = s.apiKey) =>
  post('/v1/contacts/groups/remove', apiKey, { groupSlug, contactIds });

type Answer = Awaited<ReturnType<typeof post>>;
function expectError(res: Answer, status: number, code: string) {
  expect([res.statusCode, res.json().error?.code], res.body).toEqual([status, code]);
  return res.json().error as { message: string; details?: { path: string; message: string }[] };
}

const db = () => h.runtime.deps.db;

/** A contact of the tenant, stored as the contacts endpoints store one (normalised email). */
async function contact(email: string, tenantId = s.tenantId): Promise<string> {
  const id = newId('ct');
  const now = h.clock.now();
  await db()
    .insertInto('contacts')
    .values({ id, tenant_id: tenantId, email, created_at: now, updated_at: now })
    .execute();
  return id;
}

async function membersOf(slug: string, tenantId = s.tenantId): Promise<string[]> {
  const rows = await db()
    .selectFrom('contact_group_members')
    .select('contact_id')
    .where('tenant_id', '=', tenantId)
    .where('group_slug', '=', slug)
    .orderBy('contact_id')
    .execute();
  return rows.map((r) => r.contact_id);
}

async function groupOf(slug: string, apiKey = s.apiKey) {
  return (await list(apiKey)).json().groups.find((g: { slug: string }) => g.slug === slug);
}

describe('POST /v1/contacts/groups/upsert', () => {
  it('creates a group whose slug is derived from its name, with no contacts and the clock’s timestamps', async () => {
    const res = await upsert({ name: 'Beta Testers' });
    expect(res.statusCode, res.body).toBe(200);
    const now = h.clock.now().toISOString();
    expect(res.json()).toEqual({
      ok: true,
      group: { slug: 'beta-testers', name: 'Beta Testers', contactCount: 0, createdAt: now, updatedAt: now },
    });
  });

  it('derives the slug: lowercase, diacritics dropped, each run of other characters one hyphen, trimmed, at most 63 characters', async () => {
    const cases: [string, string][] = [
      ['Équipe Café', 'equipe-cafe'],
      ['Ünïcödé Ångström', 'unicode-angstrom'],
      ['  **Early -- Access!!  ', 'early-access'],
      ['Q4/2026: VIP & Partners', 'q4-2026-vip-partners'],
      ['Team 東京 ﬁnance', 'team-finance'],
      ['x'.repeat(100), 'x'.repeat(63)],
      [`${'y'.repeat(62)} and more`, 'y'.repeat(62)],
    ];
    for (const [name, slug] of cases) {
      const res = await upsert({ name });
      expect([res.statusCode, res.json().group?.slug], name).toEqual([200, slug]);
      expect(res.json().group.name).toBe(name);
    }
  });

  it('answers 400 invalid_request on /name when no letter or digit is left to derive a slug from; an explicit slug is taken then', async () => {
    for (const name of ['!!!', '東京', '🎉', '- _ -']) {
      const error = expectError(await upsert({ name }), 400, 'invalid_request');
      expect(error.details).toEqual([
        { path: '/name', message: 'name has no letters or digits to derive a slug from; pass slug' },
      ]);
    }
    const res = await upsert({ name: '東京', slug: 'tokyo' });
    expect(res.json().group).toMatchObject({ slug: 'tokyo', name: '東京' });
  });

  it('is idempotent: the same name again answers the same group and moves nothing', async () => {
    const first = (await upsert({ name: 'Newsletter' })).json().group;
    h.clock.advance(60_000);
    const again = await upsert({ name: 'Newsletter' });
    expect(again.json().group).toEqual(first);
    expect(
      (await list()).json().groups.filter((g: { slug: string }) => g.slug === 'newsletter'),
    ).toHaveLength(1);
  });

  it('renames the group of an existing slug: the name changes, updatedAt moves, createdAt and members stay', async () => {
    const created = (await upsert({ name: 'Customers', slug: 'customers' })).json().group;
    const member = await contact('renamed-member@example.com');
    await add('customers', [member]);
    h.clock.advance(60_000);
    const res = await upsert({ name: 'Paying customers', slug: 'customers' });
    expect(res.json().group).toEqual({
      slug: 'customers',
      name: 'Paying customers',
      contactCount: 1,
      createdAt: created.createdAt,
      updatedAt: h.clock.now().toISOString(),
    });
    expect(await membersOf('customers')).toEqual([member]);
  });

  it('takes an explicit slug that differs from the name, and the same name under two slugs is two groups', async () => {
    expect((await upsert({ name: 'Staff', slug: 'internal-2026' })).json().group.slug).toBe('internal-2026');
    expect((await upsert({ name: 'Staff' })).json().group.slug).toBe('staff');
    expect(await groupOf('internal-2026')).toMatchObject({ name: 'Staff' });
    expect(await groupOf('staff')).toMatchObject({ name: 'Staff' });
  });

  it('answers 400 invalid_request naming the field for a missing, empty, long, blank or control-character name, a malformed slug and unknown properties', async () => {
    const cases: [unknown, string][] = [
      [{}, '/name'],
      [{ name: '' }, '/name'],
      [{ name: 'x'.repeat(101) }, '/name'],
      [{ name: '   ' }, '/name'],
      [{ name: 'Line\nbreak' }, '/name'],
      [{ name: 'Tab\there' }, '/name'],
      [{ name: 'Bell\u0007' }, '/name'],
      [{ name: 'C1\u0085' }, '/name'],
      [{ name: 'Bidi\u202eoverride' }, '/name'],
      [{ name: 42 }, '/name'],
      [{ name: 'Ok', slug: 'Upper' }, '/slug'],
      [{ name: 'Ok', slug: '-leading' }, '/slug'],
      [{ name: 'Ok', slug: 'under_score' }, '/slug'],
      [{ name: 'Ok', slug: 'a'.repeat(64) }, '/slug'],
      [{ name: 'Ok', slug: '' }, '/slug'],
      [{ name: 'Ok', extra: true }, '/extra'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await upsert(body), 400, 'invalid_request');
      expect(
        error.details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await upsert({ name: 'x'.repeat(100) })).statusCode).toBe(200);
  });
});

describe('POST /v1/contacts/groups/list', () => {
  it('lists every group of the tenant ordered by slug (byte order), each with its contact count', async () => {
    const t = await seedScope(h);
    for (const slug of ['ab', 'a-b', 'a1', 'b']) await upsert({ name: `Group ${slug}`, slug }, t.apiKey);
    const c1 = await contact('list-1@example.com', t.tenantId);
    const c2 = await contact('list-2@example.com', t.tenantId);
    await add('ab', [c1, c2], t.apiKey);
    await add('b', [c2], t.apiKey);
    const res = await list(t.apiKey);
    expect(res.statusCode).toBe(200);
    const now = h.clock.now().toISOString();
    expect(res.json()).toEqual({
      ok: true,
      groups: [
        { slug: 'a-b', name: 'Group a-b', contactCount: 0, createdAt: now, updatedAt: now },
        { slug: 'a1', name: 'Group a1', contactCount: 0, createdAt: now, updatedAt: now },
        { slug: 'ab', name: 'Group ab', contactCount: 2, createdAt: now, updatedAt: now },
        { slug: 'b', name: 'Group b', contactCount: 1, createdAt: now, updatedAt: now },
      ],
    });
  });

  it('answers an empty list for a tenant without groups', async () => {
    expect((await list((await seedScope(h)).apiKey)).json()).toEqual({ ok: true, groups: [] });
  });

  it('takes {} only, like every POST: fields are 400 invalid_request, an empty body 400, no JSON Content-Type 415', async () => {
    const error = expectError(
      await post('/v1/contacts/groups/list', s.apiKey, { all: true }),
      400,
      'invalid_request',
    );
    expect(error.details).toEqual([{ path: '/all', message: 'is not an allowed property' }]);
    expectError(await post('/v1/contacts/groups/list', s.apiKey, ''), 400, 'invalid_request');
    expectError(await post('/v1/contacts/groups/list', s.apiKey, '[]'), 400, 'invalid_request');
    const noType = await h.request({
      method: 'POST',
      url: '/v1/contacts/groups/list',
      headers: bearer(s.apiKey),
    });
    expectError(noType, 415, 'unsupported_media_type');
  });
});

describe('POST /v1/contacts/groups/delete', () => {
  it('deletes the group and its memberships but never its contacts, and writes one audit event', async () => {
    const a = await contact('kept-a@example.com');
    const b = await contact('kept-b@example.com');
    await upsert({ name: 'Doomed' });
    await add('doomed', [a, b]);
    await add('survivor', [a]);
    const res = await remove('doomed');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(await groupOf('doomed')).toBeUndefined();
    expect(await membersOf('doomed')).toEqual([]);
    expect(await membersOf('survivor')).toEqual([a]);
    const contacts = await db().selectFrom('contacts').select('id').where('id', 'in', [a, b]).execute();
    expect(contacts).toHaveLength(2);
    const audit = await db()
      .selectFrom('audit_events')
      .selectAll()
      .where('tenant_id', '=', s.tenantId)
      .where('action', '=', 'contact_group.deleted')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: `key:${s.keyId}`,
      target_type: 'contact_group',
      target_id: 'doomed',
    });
    expect(audit[0]!.details).toEqual({ name: 'Doomed', memberships: 2 });
  });

  it('answers 404 group_not_found for an unknown slug, and for a group deleted before', async () => {
    let error = expectError(await remove('never-was'), 404, 'group_not_found');
    expect(error.details).toEqual([{ path: '/groupSlug', message: 'no group with this slug in the tenant' }]);
    await upsert({ name: 'Twice' });
    expect((await remove('twice')).statusCode).toBe(200);
    error = expectError(await remove('twice'), 404, 'group_not_found');
  });

  it('answers 400 invalid_request for a missing or malformed groupSlug and unknown properties', async () => {
    for (const body of [{}, { groupSlug: 'Not A Slug' }, { groupSlug: 7 }, { groupSlug: 'ok', more: 1 }]) {
      expectError(await post('/v1/contacts/groups/delete', s.apiKey, body), 400, 'invalid_request');
    }
  });
});

describe('POST /v1/contacts/groups/add', () => {
  it('adds contacts by id and by email (normalised as stored), counting only new memberships', async () => {
    const a = await contact('add-a@example.com');
    const b = await contact('add-b@xn--bcher-kva.example');
    const c = await contact('add-c@example.com');
    await upsert({ name: 'Adds' });
    let res = await add('adds', [a, '  ADD-B@Bücher.Example ']);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, updated: 2 });
    res = await add('adds', [a, 'add-b@xn--bcher-kva.example', c]);
    expect(res.json()).toEqual({ ok: true, updated: 1 });
    expect(await membersOf('adds')).toEqual([a, b, c].sort());
    expect((await groupOf('adds')).contactCount).toBe(3);
  });

  it('counts a contact named by its id and by its email once', async () => {
    const a = await contact('twice-named@example.com');
    const res = await add('named-twice', [a, 'twice-named@example.com', 'Twice-Named@example.com']);
    expect(res.json()).toEqual({ ok: true, updated: 1 });
  });

  it('creates a missing group, named after its slug', async () => {
    const a = await contact('creates@example.com');
    expect((await add('made-by-add', [a])).json()).toEqual({ ok: true, updated: 1 });
    const now = h.clock.now().toISOString();
    expect(await groupOf('made-by-add')).toEqual({
      slug: 'made-by-add',
      name: 'made-by-add',
      contactCount: 1,
      createdAt: now,
      updatedAt: now,
    });
  });

  it('answers 404 contact_not_found listing each unknown item’s path, and changes nothing', async () => {
    const a = await contact('known@example.com');
    await upsert({ name: 'Strict' });
    const items = [a, newId('ct'), 'known@example.com', 'nobody@example.com', newId('ct')];
    const error = expectError(await add('strict', items), 404, 'contact_not_found');
    expect(error.details).toEqual([
      { path: '/contactIds/1', message: 'no contact of the tenant has this id' },
      { path: '/contactIds/3', message: 'no contact of the tenant has this email' },
      { path: '/contactIds/4', message: 'no contact of the tenant has this id' },
    ]);
    expect(await membersOf('strict')).toEqual([]);
    // Nor is a missing group created.
    expectError(await add('not-created', [newId('ct')]), 404, 'contact_not_found');
    expect(await groupOf('not-created')).toBeUndefined();
  });

  it('adds 1,000 contacts in one request', async () => {
    const now = h.clock.now();
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      id: newId('ct'),
      tenant_id: s.tenantId,
      email: `bulk-${i}@example.com`,
      created_at: now,
      updated_at: now,
    }));
    await db().insertInto('contacts').values(rows).execute();
    const res = await add(
      'thousand',
      rows.map((r) => r.id),
    );
    expect(res.json()).toEqual({ ok: true, updated: 1000 });
    expect((await groupOf('thousand')).contactCount).toBe(1000);
  });

  it('answers 400 invalid_request for an item that is neither a contact id nor an email, naming each, and changes nothing', async () => {
    const a = await contact('valid-item@example.com');
    const error = expectError(
      await add('bad-items', [a, 'not an address', 'ct_nope', 'ct_01M81c1xjb7y4khb01g4b1p0m5']),
      400,
      'invalid_request',
    );
    expect(error.details).toEqual([
      { path: '/contactIds/1', message: 'must be a contact id (ct_…) or an email address' },
      { path: '/contactIds/2', message: 'must be a contact id (ct_…) or an email address' },
      { path: '/contactIds/3', message: 'must be a contact id (ct_…) or an email address' },
    ]);
    expect(await groupOf('bad-items')).toBeUndefined();
  });

  it('answers 400 invalid_request for a missing or malformed groupSlug, and for contactIds empty, over 1,000, repeated, not strings or missing', async () => {
    const a = await contact('shape@example.com');
    const cases: [unknown, string][] = [
      [{ contactIds: [a] }, '/groupSlug'],
      [{ groupSlug: 'UPPER', contactIds: [a] }, '/groupSlug'],
      [{ groupSlug: 'ok' }, '/contactIds'],
      [{ groupSlug: 'ok', contactIds: [] }, '/contactIds'],
      [
        { groupSlug: 'ok', contactIds: Array.from({ length: 1001 }, (_, i) => `c${i}@example.com`) },
        '/contactIds',
      ],
      [{ groupSlug: 'ok', contactIds: [a, a] }, '/contactIds'],
      [{ groupSlug: 'ok', contactIds: [7] }, '/contactIds/0'],
      [{ groupSlug: 'ok', contactIds: [''] }, '/contactIds/0'],
      [{ groupSlug: 'ok', contactIds: a }, '/contactIds'],
      [{ groupSlug: 'ok', contactIds: [a], extra: 1 }, '/extra'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(
        await post('/v1/contacts/groups/add', s.apiKey, body),
        400,
        'invalid_request',
      );
      expect(
        error.details?.map((d) => d.path),
        JSON.stringify(body).slice(0, 80),
      ).toContain(path);
    }
    expect(await groupOf('ok')).toBeUndefined();
  });
});

describe('POST /v1/contacts/groups/remove', () => {
  it('removes members by id or email, counting only those that were members; the contacts stay', async () => {
    const a = await contact('rm-a@example.com');
    const b = await contact('rm-b@example.com');
    const outsider = await contact('rm-outsider@example.com');
    await add('removals', [a, b]);
    const res = await removeMembers('removals', ['RM-A@example.com', outsider]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, updated: 1 });
    expect(await membersOf('removals')).toEqual([b]);
    expect((await removeMembers('removals', [a, b, 'rm-b@example.com'])).json()).toEqual({
      ok: true,
      updated: 1,
    });
    expect(await groupOf('removals')).toMatchObject({ contactCount: 0 });
    const kept = await db().selectFrom('contacts').select('id').where('id', 'in', [a, b, outsider]).execute();
    expect(kept).toHaveLength(3);
  });

  it('answers 404 group_not_found for an unknown group', async () => {
    const a = await contact('rm-nogroup@example.com');
    const error = expectError(await removeMembers('no-such-group', [a]), 404, 'group_not_found');
    expect(error.details).toEqual([{ path: '/groupSlug', message: 'no group with this slug in the tenant' }]);
  });

  it('answers 404 contact_not_found listing each unknown item’s path, and changes nothing', async () => {
    const a = await contact('rm-known@example.com');
    await add('rm-strict', [a]);
    const error = expectError(
      await removeMembers('rm-strict', [a, 'rm-unknown@example.com']),
      404,
      'contact_not_found',
    );
    expect(error.details).toEqual([
      { path: '/contactIds/1', message: 'no contact of the tenant has this email' },
    ]);
    expect(await membersOf('rm-strict')).toEqual([a]);
  });

  it('answers 400 invalid_request for a malformed body or item', async () => {
    const a = await contact('rm-shape@example.com');
    await add('rm-shape', [a]);
    for (const body of [
      {},
      { groupSlug: 'rm-shape' },
      { groupSlug: 'rm-shape', contactIds: [] },
      { groupSlug: 'rm-shape', contactIds: ['nope'] },
      { groupSlug: 'rm shape', contactIds: [a] },
      { groupSlug: 'rm-shape', contactIds: [a], extra: 1 },
    ])
      expectError(await post('/v1/contacts/groups/remove', s.apiKey, body), 400, 'invalid_request');
    expect(await membersOf('rm-shape')).toEqual([a]);
  });
});

describe('tenants apart, environments together', () => {
  it('lets no other tenant list, rename, delete, add to or remove from a group, nor add another tenant’s contacts', async () => {
    const a = await seedScope(h);
    const b = await seedScope(h);
    const mine = await contact('tenant-a@example.com', a.tenantId);
    const created = (await upsert({ name: 'Private', slug: 'private' }, a.apiKey)).json().group;
    await add('private', [mine], a.apiKey);

    expect((await list(b.apiKey)).json().groups).toEqual([]);
    expectError(await remove('private', b.apiKey), 404, 'group_not_found');
    expectError(await removeMembers('private', [mine], b.apiKey), 404, 'group_not_found');
    // b's upsert and add of the same slug are b's own group; a's contacts are not b's.
    expect((await upsert({ name: 'Taken over', slug: 'private' }, b.apiKey)).json().group.contactCount).toBe(
      0,
    );
    expectError(await add('private', [mine], b.apiKey), 404, 'contact_not_found');
    expectError(await add('private', ['tenant-a@example.com'], b.apiKey), 404, 'contact_not_found');
    await contact('tenant-a@example.com', b.tenantId); // b's own contact of the same address
    expect((await add('private', ['tenant-a@example.com'], b.apiKey)).json()).toEqual({
      ok: true,
      updated: 1,
    });
    expectError(await removeMembers('private', [mine], b.apiKey), 404, 'contact_not_found');

    expect((await list(a.apiKey)).json().groups).toEqual([{ ...created, contactCount: 1 }]);
    expect(await membersOf('private', a.tenantId)).toEqual([mine]);
    expect((await list(b.apiKey)).json().groups).toMatchObject([
      { slug: 'private', name: 'Taken over', contactCount: 1 },
    ]);
  });

  it('shows the tenant’s groups to a key of any of its environments', async () => {
    const { environment } = await h.admin('environments.create', { project: s.projectId, name: 'staging' });
    const { apiKey } = await h.admin('keys.create', { environment: environment.id });
    await upsert({ name: 'Shared across environments' });
    expect(await groupOf('shared-across-environments', apiKey)).toMatchObject({
      name: 'Shared across environments',
    });
    expect((await remove('shared-across-environments', apiKey)).statusCode).toBe(200);
    expect(await groupOf('shared-across-environments')).toBeUndefined();
  });
});

for (const id of [
  'upsertGroup',
  'listGroups',
  'deleteGroup',
  'addContactsToGroup',
  'removeContactsFromGroup',
] as const) {
  runCommonRouteTests(id, () => h);
}
