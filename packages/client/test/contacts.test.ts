// client.contacts.{upsert, upsertMany, get, list} against the real core API (listening on a port,
// on the suite's backend): the record typed as answered, pages followed to the end, errors typed.
import type { AddressInfo } from 'node:net';
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListContactsResult, Mailsvc } from '../src/index.js';
import { failure } from './helpers.js';

let h: Harness;
let s: Scope;
let client: Mailsvc;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  client = new Mailsvc({
    apiKey: s.apiKey,
    baseUrl: `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`,
  });
});
afterAll(() => h.close());

describe('client.contacts', () => {
  it('upserts a contact and reads it back by id and by email', async () => {
    const { contact } = await client.contacts.upsert({
      email: 'SDK@example.com',
      name: 'Sdk User',
      groupSlugs: ['sdk'],
      customFields: { plan: 'pro', seats: 3, trial: false },
    });
    expect(contact).toMatchObject({
      id: expect.stringMatching(/^ct_/),
      email: 'sdk@example.com',
      groupSlugs: ['sdk'],
      customFields: { plan: 'pro', seats: 3, trial: false },
      status: 'active',
      lastEmailedAt: null,
      delivery: { sent: 0, bounced: 0, complained: 0 },
    });
    expect((await client.contacts.get({ emailOrContactId: contact.id })).contact).toEqual(contact);
    expect((await client.contacts.get({ emailOrContactId: 'sdk@EXAMPLE.com' })).contact.id).toBe(contact.id);
  });

  it('upserts many and follows list pages to the end', async () => {
    const many = await client.contacts.upsertMany({
      contacts: Array.from({ length: 5 }, (_, i) => ({
        email: `page-${i}@example.com`,
        groupSlugs: ['pages'],
      })),
    });
    expect(many).toMatchObject({ ok: true, created: 5, updated: 0 });
    const seen: string[] = [];
    let page: ListContactsResult = await client.contacts.list({
      filters: [{ field: 'group', op: 'eq', value: 'pages' }],
      pageSize: 2,
    });
    for (;;) {
      seen.push(...page.contacts.map((c) => c.id));
      if (page.nextCursor === null) break;
      page = await client.contacts.list({
        filters: [{ field: 'group', op: 'eq', value: 'pages' }],
        pageSize: 2,
        cursor: page.nextCursor,
      });
    }
    expect(seen.sort()).toEqual([...many.contactIds].sort());
    expect((await client.contacts.list()).contacts.length).toBeGreaterThanOrEqual(6);
  });

  it('types contact_not_found and invalid_request with the path of each problem', async () => {
    const missing = await failure(client.contacts.get({ emailOrContactId: 'nobody@example.com' }));
    expect([missing.status, missing.code]).toEqual([404, 'contact_not_found']);
    const invalid = await failure(
      client.contacts.upsertMany({ contacts: [{ email: 'ok@example.com' }, { email: 'nope' }] }),
    );
    expect([invalid.status, invalid.code, invalid.details?.map((d) => d.path)]).toEqual([
      400,
      'invalid_request',
      ['/contacts/1/email'],
    ]);
  });
});
