// Test helpers for bulk sends: contacts and recipient states written straight into the tables
// (set-wise, so 100,000 contacts take a moment), independent of the contacts endpoints.

import type { Harness } from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { newId } from '../src/ids.js';

export interface SeedContact {
  email: string;
  name?: string | null;
  customFields?: Record<string, string | number | boolean>;
}

/** Inserts contacts of a tenant (and their memberships of `group`, created when missing); returns their ids. */
export async function seedContacts(
  h: Harness,
  tenantId: string,
  contacts: SeedContact[],
  group?: string,
): Promise<string[]> {
  const now = h.clock.now();
  const rows = contacts.map((c) => ({
    id: newId('ct', now.getTime()),
    email: c.email,
    name: c.name ?? null,
    custom_fields: c.customFields ?? {},
  }));
  const db = h.runtime.deps.db;
  await sql`
    INSERT INTO contacts (id, tenant_id, email, name, custom_fields, created_at, updated_at)
    SELECT r.id, ${tenantId}, r.email, r.name, r.custom_fields, ${now}, ${now}
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
           AS r (id text, email text, name text, custom_fields jsonb)`.execute(db);
  if (group)
    await addToGroup(
      h,
      tenantId,
      group,
      rows.map((r) => r.id),
    );
  return rows.map((r) => r.id);
}

export async function addToGroup(h: Harness, tenantId: string, group: string, ids: string[]): Promise<void> {
  const now = h.clock.now();
  const db = h.runtime.deps.db;
  await sql`
    INSERT INTO contact_groups (tenant_id, slug, name, created_at, updated_at)
    VALUES (${tenantId}, ${group}, ${group}, ${now}, ${now}) ON CONFLICT DO NOTHING`.execute(db);
  await sql`
    INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
    SELECT ${tenantId}, ${group}, id, ${now} FROM unnest(${ids}::text[]) AS id
    ON CONFLICT DO NOTHING`.execute(db);
}

/** n contacts `<prefix>-<i>@example.com` in one statement, all in `group`. */
export async function seedManyContacts(
  h: Harness,
  tenantId: string,
  n: number,
  prefix: string,
  group: string,
): Promise<void> {
  const now = h.clock.now();
  const db = h.runtime.deps.db;
  const idPrefix = newId('ct', now.getTime()).slice(0, 3 + 18);
  await sql`
    INSERT INTO contacts (id, tenant_id, email, name, created_at, updated_at)
    SELECT ${idPrefix} || crockford32(i), ${tenantId}, ${prefix} || '-' || i || '@example.com',
           'Contact ' || i, ${now}, ${now}
      FROM generate_series(1, ${n}) AS i`.execute(db);
  await sql`
    INSERT INTO contact_groups (tenant_id, slug, name, created_at, updated_at)
    VALUES (${tenantId}, ${group}, ${group}, ${now}, ${now}) ON CONFLICT DO NOTHING`.execute(db);
  await sql`
    INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
    SELECT ${tenantId}, ${group}, id, ${now} FROM contacts
     WHERE tenant_id = ${tenantId} AND email LIKE ${`${prefix}-%`}`.execute(db);
}

export type RecipientFacts = Partial<
  Record<
    'unsubscribed_at' | 'resubscribed_at' | 'complained_at' | 'cooldown_until' | 'suppressed_until',
    Date
  >
>;

/** Sets an address's recipient state in an environment. */
export async function setRecipient(
  h: Harness,
  scope: { tenantId: string; environmentId: string },
  email: string,
  facts: RecipientFacts,
): Promise<void> {
  const now = h.clock.now();
  await h.runtime.deps.db
    .insertInto('recipients')
    .values({
      environment_id: scope.environmentId,
      tenant_id: scope.tenantId,
      email,
      ...facts,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['environment_id', 'email']).doUpdateSet(facts))
    .execute();
}
