// Contacts (DESIGN.md §7): tenant-level, unique per tenant by normalised email. Every statement is
// filtered by the tenant, so another tenant's contact is never seen, only missing. A contact's
// status and delivery summary are read for one environment (the key's): its recipients row and
// its messages there.
import { type RawBuilder, sql } from 'kysely';
import type { CustomFieldValue, Db } from '../schema.js';

/** One contact to create or update; undefined fields are left as they are. */
export interface ContactWrite {
  /** The id a new contact gets (an existing one keeps its own). */
  newId: string;
  /** Normalised. */
  email: string;
  /** null clears it. */
  name?: string | null;
  /** Merged key by key; a null value deletes the key. */
  customFields?: Record<string, CustomFieldValue | null>;
  /** The exact set of groups. */
  groupSlugs?: string[];
}

export interface UpsertContactsResult {
  /** Per write, in order: the contact's id, or null when its merge was over the key limit (skipped). */
  ids: (string | null)[];
  created: number;
  updated: number;
  /** Indexes of the writes whose stored and new custom fields together are over the key limit. */
  overLimit: number[];
}

/** Some merged custom fields were over the key limit; nothing was written. */
export class CustomFieldsOverLimitError extends Error {
  constructor(readonly indexes: number[]) {
    super(`custom fields over the limit at ${indexes.join(', ')}`);
  }
}

/** In upsertContactRows' ON CONFLICT branch: the stored fields with the write's patch on top, its null values deleting keys. */
const merged = sql`jsonb_strip_nulls(c.custom_fields
  || coalesce((SELECT patches FROM input) -> excluded.email -> 'fields', '{}'::jsonb))`;

/**
 * Creates and updates a batch of contacts in one transaction: one INSERT … ON CONFLICT DO UPDATE
 * writes every contact in email order (so concurrent batches lock rows in the same order),
 * merging custom fields in SQL; then the groups named are created when missing (named after
 * their slug) and locked (KEY SHARE: a concurrent delete waits, other upserts do not) — contacts
 * before groups, the order the group endpoints lock them in — and the memberships are set
 * set-wise. A write whose merged custom fields would exceed `maxCustomFields`
 * keys is not updated: with `isAllOrNothing` the transaction is rolled back
 * (CustomFieldsOverLimitError), else it is skipped and reported. `addGroupSlugs`: groups every
 * written contact joins, keeping its others (the CSV import's --group). Emails must be distinct.
 */
export async function upsertContactRows(
  db: Db,
  q: {
    tenantId: string;
    contacts: ContactWrite[];
    addGroupSlugs?: string[];
    maxCustomFields: number;
    isAllOrNothing: boolean;
  },
  now: Date,
): Promise<UpsertContactsResult> {
  const slugs = new Set(q.addGroupSlugs ?? []);
  for (const c of q.contacts) for (const s of c.groupSlugs ?? []) slugs.add(s);
  // Keyed by email: the ON CONFLICT branch finds its patch by EXCLUDED.email (a jsonb object's
  // keys are sorted, so each lookup is a binary search).
  const patches: Record<string, { id: string; name?: string | null; fields?: Record<string, unknown> }> = {};
  for (const c of q.contacts) {
    patches[c.email] = {
      id: c.newId,
      ...(c.name !== undefined && { name: c.name }),
      ...(c.customFields !== undefined && { fields: c.customFields }),
    };
  }
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string; email: string; is_inserted: boolean }>`
      WITH input AS MATERIALIZED (SELECT ${JSON.stringify(patches)}::jsonb AS patches)
      INSERT INTO contacts AS c (id, tenant_id, email, name, custom_fields, created_at, updated_at)
      SELECT x.value ->> 'id', ${q.tenantId}, x.key, x.value ->> 'name',
             jsonb_strip_nulls(coalesce(x.value -> 'fields', '{}'::jsonb)), ${now}, ${now}
      FROM input, jsonb_each(input.patches) AS x
      ORDER BY x.key COLLATE "C"
      ON CONFLICT (tenant_id, email) DO UPDATE SET
        name = CASE WHEN ((SELECT patches FROM input) -> excluded.email) ? 'name'
                    THEN excluded.name ELSE c.name END,
        custom_fields = ${merged},
        updated_at = excluded.updated_at
      WHERE (SELECT count(*) FROM jsonb_object_keys(${merged})) <= ${q.maxCustomFields}
      RETURNING c.id, c.email, (c.xmax = 0) AS is_inserted`.execute(trx);
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    const overLimit = q.contacts.flatMap((c, i) => (byEmail.has(c.email) ? [] : [i]));
    if (overLimit.length > 0 && q.isAllOrNothing) throw new CustomFieldsOverLimitError(overLimit);
    const ids = q.contacts.map((c) => byEmail.get(c.email)?.id ?? null);
    if (slugs.size > 0) await lockGroups(trx, q.tenantId, [...slugs].sort(), now);
    const sets = q.contacts.flatMap((c) =>
      c.groupSlugs !== undefined && byEmail.has(c.email)
        ? [{ contact_id: byEmail.get(c.email)!.id, slugs: c.groupSlugs }]
        : [],
    );
    if (sets.length > 0) {
      await sql`
        DELETE FROM contact_group_members m
        USING jsonb_to_recordset(${JSON.stringify(sets)}::jsonb) AS s (contact_id text, slugs text[])
        WHERE m.tenant_id = ${q.tenantId} AND m.contact_id = s.contact_id
          AND m.group_slug <> ALL (s.slugs)`.execute(trx);
    }
    const written = ids.filter((id): id is string => id !== null);
    const added = [...(q.addGroupSlugs ?? [])];
    if (sets.length > 0 || (added.length > 0 && written.length > 0)) {
      await sql`
        INSERT INTO contact_group_members (tenant_id, group_slug, contact_id, created_at)
        SELECT ${q.tenantId}, m.slug, m.contact_id, ${now}
        FROM (
          SELECT s.contact_id, unnest(s.slugs) AS slug
          FROM jsonb_to_recordset(${JSON.stringify(sets)}::jsonb) AS s (contact_id text, slugs text[])
          UNION
          SELECT c.id, g.slug FROM unnest(${written}::text[]) AS c (id), unnest(${added}::text[]) AS g (slug)
        ) m
        ORDER BY m.slug COLLATE "C", m.contact_id
        ON CONFLICT DO NOTHING`.execute(trx);
    }
    const created = rows.filter((r) => r.is_inserted).length;
    return { ids, created, updated: rows.length - created, overLimit };
  });
}

/**
 * Creates the groups that are missing and KEY SHARE-locks them all, so a concurrent delete cannot
 * remove one before this transaction's memberships reference it. A group deleted between the
 * insert and the lock is created again.
 */
async function lockGroups(db: Db, tenantId: string, slugs: string[], now: Date): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await sql`
      INSERT INTO contact_groups (tenant_id, slug, name, created_at, updated_at)
      SELECT ${tenantId}, s.slug, s.slug, ${now}, ${now} FROM unnest(${slugs}::text[]) AS s (slug)
      ORDER BY s.slug COLLATE "C"
      ON CONFLICT (tenant_id, slug) DO NOTHING`.execute(db);
    const { rows } = await sql<{ slug: string }>`
      SELECT slug FROM contact_groups WHERE tenant_id = ${tenantId} AND slug = ANY (${slugs}::text[])
      ORDER BY slug COLLATE "C" FOR KEY SHARE`.execute(db);
    if (rows.length === slugs.length) return;
  }
  throw new Error('contact groups kept disappearing while they were locked');
}

/** The tenant of a live environment (the CSV import names an environment); undefined otherwise. */
export async function findEnvironmentTenant(db: Db, environmentId: string) {
  return db
    .selectFrom('environments as e')
    .innerJoin('projects as p', 'p.id', 'e.project_id')
    .innerJoin('tenants as t', 't.id', 'e.tenant_id')
    .select(['e.tenant_id as tenantId'])
    .where('e.id', '=', environmentId)
    .where('e.deleted_at', 'is', null)
    .where('p.deleted_at', 'is', null)
    .where('t.deleted_at', 'is', null)
    .executeTakeFirst();
}

// ---- reading

export interface ContactRow {
  id: string;
  email: string;
  name: string | null;
  custom_fields: Record<string, CustomFieldValue>;
  group_slugs: string[];
  status: 'active' | 'unsubscribed' | 'cooldown' | 'suppressed' | 'complained';
  created_at: Date;
  updated_at: Date;
  last_emailed_at: Date | null;
  sent: number;
  bounced: number;
  complained: number;
}

/** Whose contacts, seen from which environment, when. */
export interface ContactScope {
  tenantId: string;
  environmentId: string;
  now: Date;
  /**
   * A console member limited to these projects: when a contact was last mailed, and the filters
   * on it, count only their environments' messages (another project's would tell it who was
   * mailed there). Absent or null: every environment of the tenant.
   */
  projectIds?: readonly string[] | null;
}

/** `e` (an environments row) is one the scope may look at. */
const reachable = (s: ContactScope) =>
  s.projectIds ? sql`e.project_id = ANY (${[...s.projectIds]}::text[])` : sql`true`;

/**
 * The whole record of the contacts `ids` selects (a subquery of contact ids), by id. Per contact:
 * its groups; its status in the scope's environment (contact_status(), 'active' without a
 * recipients row); the latest message to its address in any environment of the tenant (one
 * index probe per environment: messages (environment_id, to_email, created_at DESC)); and its
 * messages' outcomes in the scope's environment.
 */
function selectRecords(s: ContactScope, ids: RawBuilder<unknown>) {
  return sql<ContactRow>`
    SELECT c.id, c.email, c.name, c.custom_fields, c.created_at, c.updated_at,
      ARRAY(SELECT m.group_slug FROM contact_group_members m
            WHERE m.contact_id = c.id ORDER BY m.group_slug COLLATE "C") AS group_slugs,
      contact_status(r.complained_at, r.unsubscribed_at, r.resubscribed_at, r.cooldown_until,
                     r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, ${s.now}) AS status,
      (SELECT max(latest.created_at) FROM environments e
         CROSS JOIN LATERAL (SELECT m.created_at FROM messages m
                             WHERE m.environment_id = e.id AND m.to_email = c.email
                             ORDER BY m.created_at DESC LIMIT 1) latest
       WHERE e.tenant_id = c.tenant_id AND ${reachable(s)}) AS last_emailed_at,
      d.sent, d.bounced, d.complained
    FROM contacts c
    LEFT JOIN recipients r ON r.environment_id = ${s.environmentId} AND r.email = c.email
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE m.sent_at IS NOT NULL)::int AS sent,
             count(*) FILTER (WHERE m.status = 'bounced')::int AS bounced,
             count(*) FILTER (WHERE m.status = 'complained')::int AS complained
      FROM messages m WHERE m.environment_id = ${s.environmentId} AND m.to_email = c.email) d
    WHERE c.tenant_id = ${s.tenantId} AND c.id IN (${ids})
    ORDER BY c.id`;
}

export async function findContactRecord(
  db: Db,
  s: ContactScope,
  by: { id: string } | { email: string },
): Promise<ContactRow | undefined> {
  const ids =
    'id' in by
      ? sql`SELECT ${by.id}::text`
      : sql`SELECT id FROM contacts WHERE tenant_id = ${s.tenantId} AND email = ${by.email}`;
  const { rows } = await selectRecords(s, ids).execute(db);
  return rows[0];
}

// ---- the list

export type ContactFilterSql =
  | { field: 'status'; op: 'eq' | 'neq' | 'in'; values: string[] }
  | { field: 'group' | 'project' | 'environment'; op: 'eq' | 'neq' | 'in'; values: string[] }
  | { field: 'lastEmailedAt'; op: 'before' | 'after'; value: Date }
  | { field: 'suppressed' | 'unsubscribed' | 'complained'; value: boolean };

export interface ContactPageQuery {
  /** Escaped for ILIKE (backslash, % and _ with a backslash), without the surrounding %. */
  searchPattern?: string | undefined;
  filters: ContactFilterSql[];
  /** The last id of the previous page. */
  afterId?: string | undefined;
  limit: number;
}

// The parts of the eligibility rule (db/functions/recipient_refusal.sql), for the filters.
const isUnsubscribed = sql`is_unsubscribed(r.unsubscribed_at, r.resubscribed_at)`;

/**
 * What a status needs of the recipients row, beyond contact_status(): redundant, but it lets the
 * planner start from the few recipients in that state instead of testing every contact.
 */
function statusHint(statuses: string[], now: Date): RawBuilder<unknown> | null {
  if (statuses.includes('active')) return null;
  const needs = statuses.map((st) => {
    switch (st) {
      case 'complained':
        return sql`r.complained_at IS NOT NULL`;
      case 'suppressed':
        return sql`(r.suppressed_until > ${now} OR r.manual_suppressed_at IS NOT NULL)`;
      case 'cooldown':
        return sql`r.cooldown_until > ${now}`;
      default:
        return sql`r.unsubscribed_at IS NOT NULL`;
    }
  });
  return sql`(${sql.join(needs, sql` OR `)})`;
}

function filterSql(f: ContactFilterSql, s: ContactScope): RawBuilder<unknown> {
  const negate = (cond: RawBuilder<unknown>, op: string) => (op === 'neq' ? sql`NOT ${cond}` : cond);
  switch (f.field) {
    case 'status': {
      const status = sql`contact_status(r.complained_at, r.unsubscribed_at, r.resubscribed_at,
        r.cooldown_until, r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, ${s.now})`;
      if (f.op === 'neq') return sql`${status} <> ${f.values[0]}`;
      const hint = statusHint(f.values, s.now);
      const match = sql`${status} = ANY (${f.values}::text[])`;
      return hint ? sql`(${hint} AND ${match})` : match;
    }
    case 'group':
      return negate(
        sql`EXISTS (SELECT 1 FROM contact_group_members m WHERE m.tenant_id = ${s.tenantId}
          AND m.group_slug = ANY (${f.values}::text[]) AND m.contact_id = c.id)`,
        f.op,
      );
    case 'environment':
      return negate(
        sql`EXISTS (SELECT 1 FROM environments e JOIN messages m ON m.environment_id = e.id
          WHERE e.tenant_id = ${s.tenantId} AND ${reachable(s)} AND e.id = ANY (${f.values}::text[])
            AND m.to_email = c.email)`,
        f.op,
      );
    case 'project':
      return negate(
        sql`EXISTS (SELECT 1 FROM environments e JOIN messages m ON m.environment_id = e.id
          WHERE e.tenant_id = ${s.tenantId} AND ${reachable(s)} AND e.project_id = ANY (${f.values}::text[])
            AND m.to_email = c.email)`,
        f.op,
      );
    case 'lastEmailedAt': {
      const emailed = (cond: RawBuilder<unknown>) =>
        sql`EXISTS (SELECT 1 FROM environments e JOIN messages m ON m.environment_id = e.id
          WHERE e.tenant_id = ${s.tenantId} AND ${reachable(s)} AND m.to_email = c.email AND ${cond})`;
      // Never emailed: neither before nor after anything.
      return f.op === 'after'
        ? emailed(sql`m.created_at > ${f.value}`)
        : sql`(${emailed(sql`m.created_at < ${f.value}`)} AND NOT ${emailed(sql`m.created_at >= ${f.value}`)})`;
    }
    case 'suppressed': {
      const is = sql`is_held_back(r.cooldown_until, r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, ${s.now})`;
      return f.value ? is : sql`NOT coalesce(${is}, false)`;
    }
    case 'unsubscribed':
      return f.value ? isUnsubscribed : sql`NOT coalesce(${isUnsubscribed}, false)`;
    case 'complained':
      return f.value ? sql`r.complained_at IS NOT NULL` : sql`r.complained_at IS NULL`;
  }
}

/**
 * One page of the tenant's contacts in id order (ULIDs: creation order), so a page boundary
 * stays put while contacts are added: one statement, the page's ids first (search and filters
 * only), then the records of those ids alone. Answers up to `limit` records.
 */
export async function listContactRecords(
  db: Db,
  s: ContactScope,
  q: ContactPageQuery,
): Promise<ContactRow[]> {
  const { rows } = await contactPageSql(s, q).execute(db);
  return rows;
}

/** The statement of listContactRecords (bench/contacts-list.ts explains it). */
export function contactPageSql(s: ContactScope, q: ContactPageQuery) {
  const where: RawBuilder<unknown>[] = [sql`c.tenant_id = ${s.tenantId}`];
  if (q.afterId !== undefined) where.push(sql`c.id > ${q.afterId}`);
  if (q.searchPattern !== undefined) {
    const p = `%${q.searchPattern}%`;
    // Backslash is LIKE's default escape character (escapeLikePattern); the trigram indexes of
    // email and name (0008) serve a rare substring.
    where.push(sql`(c.email ILIKE ${p} OR c.name ILIKE ${p})`);
  }
  for (const f of q.filters) where.push(filterSql(f, s));
  const ids = sql`
    SELECT c.id FROM contacts c
    LEFT JOIN recipients r ON r.environment_id = ${s.environmentId} AND r.email = c.email
    WHERE ${sql.join(where, sql` AND `)}
    ORDER BY c.id
    LIMIT ${q.limit}`;
  return selectRecords(s, ids);
}
