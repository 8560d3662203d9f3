// Contact groups and their memberships (DESIGN.md §7). Tenant-level: every statement is filtered
// by the tenant, so another tenant's group or contact is never seen, only missing.
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export interface GroupRow {
  slug: string;
  name: string;
  contact_count: number;
  created_at: Date;
  updated_at: Date;
}

const contactCountOf = (tenantId: string, slug: ReturnType<typeof sql.ref>) => sql<number>`(
  SELECT count(*)::int FROM contact_group_members m WHERE m.tenant_id = ${tenantId} AND m.group_slug = ${slug})`;

/**
 * Creates the group, or gives the existing group of this slug the new name. Its updated_at moves
 * only when the name changes, so repeating an upsert changes nothing.
 */
export async function upsertGroupRow(
  db: Db,
  g: { tenantId: string; slug: string; name: string },
  now: Date,
): Promise<GroupRow> {
  const { rows } = await sql<GroupRow>`
    WITH g AS (
      INSERT INTO contact_groups AS g (tenant_id, slug, name, created_at, updated_at)
      VALUES (${g.tenantId}, ${g.slug}, ${g.name}, ${now}, ${now})
      ON CONFLICT (tenant_id, slug) DO UPDATE SET
        name = excluded.name,
        updated_at = CASE WHEN g.name = excluded.name THEN g.updated_at ELSE excluded.updated_at END
      RETURNING slug, name, created_at, updated_at
    )
    SELECT g.*, ${contactCountOf(g.tenantId, sql.ref('g.slug'))} AS contact_count FROM g`.execute(db);
  return rows[0]!;
}

/** Every group of the tenant, by slug (byte order, the same on every database collation). */
export async function listGroupRows(db: Db, tenantId: string): Promise<GroupRow[]> {
  const { rows } = await sql<GroupRow>`
    SELECT g.slug, g.name, g.created_at, g.updated_at,
           ${contactCountOf(tenantId, sql.ref('g.slug'))} AS contact_count
    FROM contact_groups g
    WHERE g.tenant_id = ${tenantId}
    ORDER BY g.slug COLLATE "C"`.execute(db);
  return rows;
}

/**
 * Deletes the group; its memberships go with it (ON DELETE CASCADE), its contacts stay. Answers
 * the deleted group's name and how many memberships it had, or undefined when there was none.
 */
export async function deleteGroupRow(
  db: Db,
  tenantId: string,
  slug: string,
): Promise<{ name: string; memberships: number } | undefined> {
  // The count reads the snapshot taken before the delete and its cascade.
  const { rows } = await sql<{ name: string; memberships: number }>`
    WITH deleted AS (
      DELETE FROM contact_groups WHERE tenant_id = ${tenantId} AND slug = ${slug} RETURNING slug, name
    )
    SELECT name, ${contactCountOf(tenantId, sql.ref('deleted.slug'))} AS memberships FROM deleted`.execute(
    db,
  );
  return rows[0];
}

export async function hasGroup(db: Db, tenantId: string, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('contact_groups')
    .select('slug')
    .where('tenant_id', '=', tenantId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The tenant's contacts among these ids and normalised emails. `isLocked`: FOR KEY SHARE, so a
 * contact cannot be deleted before the caller's transaction references it.
 */
export async function findContactsByIdOrEmail(
  db: Db,
  q: { tenantId: string; ids: string[]; emails: string[]; isLocked: boolean },
): Promise<{ id: string; email: string }[]> {
  const { rows } = await sql<{ id: string; email: string }>`
    SELECT id, email FROM contacts
    WHERE tenant_id = ${q.tenantId}
      AND (id = ANY(${q.ids}::text[]) OR email = ANY(${q.emails}::text[]))
    ORDER BY id
    ${q.isLocked ? sql`FOR KEY SHARE` : sql``}`.execute(db);
  return rows;
}

/**
 * One statement: creates the group when missing (named after its slug) — or locks it, so a
 * concurrent delete waits — and adds the contacts not already in it. Answers how many were added.
 * The contact ids must be the tenant's (findContactsByIdOrEmail).
 */
export async function addGroupMembers(
  db: Db,
  m: { tenantId: string; slug: string; contactIds: string[] },
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ added: number }>`
    WITH g AS (
      INSERT INTO contact_groups AS g (tenant_id, slug, name, created_at, updated_at)
      VALUES (${m.tenantId}, ${m.slug}, ${m.slug}, ${now}, ${now})
      ON CONFLICT (tenant_id, slug) DO UPDATE SET updated_at = g.updated_at
      RETURNING tenant_id, slug
    ), added AS (
      INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
      SELECT g.tenant_id, g.slug, c.id, ${now}
      FROM g CROSS JOIN unnest(${m.contactIds}::text[]) AS c (id)
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS added FROM added`.execute(db);
  return rows[0]!.added;
}

/** Removes the contacts from the group; answers how many were members. */
export async function removeGroupMembers(
  db: Db,
  m: { tenantId: string; slug: string; contactIds: string[] },
): Promise<number> {
  const result = await db
    .deleteFrom('contact_group_members')
    .where('tenant_id', '=', m.tenantId)
    .where('group_slug', '=', m.slug)
    .where('contact_id', '=', sql<string>`ANY(${m.contactIds}::text[])`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
