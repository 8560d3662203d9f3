// Sending domains: as the admin use-cases and POST /v1/domains/* register and change them, as the
// domain checker claims and updates them (a leased queue on next_check_at), and as the dev inbox
// reads them (the public half of a domain's DKIM key, the TXT record at <selector>._domainkey.<domain>).
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Lease } from '../../queue/leased-queue-runner.js';
import type { Db, SendingDomainsTable } from '../schema.js';

/** The public key (PEM) of `domain`'s DKIM selector, whatever the domain's status; null if none. */
export async function findDkimPublicKey(db: Db, domain: string, selector: string): Promise<string | null> {
  const rows = await db
    .selectFrom('sending_domains')
    .select(['dkim_selector', 'dkim_public_key', 'dkim_old_selector', 'dkim_old_public_key'])
    .where('domain', '=', domain.toLowerCase())
    .where((eb) => eb.or([eb('dkim_selector', '=', selector), eb('dkim_old_selector', '=', selector)]))
    .execute();
  for (const r of rows) {
    if (r.dkim_selector === selector && r.dkim_public_key) return r.dkim_public_key;
    if (r.dkim_old_selector === selector && r.dkim_old_public_key) return r.dkim_old_public_key;
  }
  return null;
}

export type SendingDomainRow = Selectable<SendingDomainsTable>;

export interface DomainOwner {
  tenant_id: string;
  project_id: string | null;
  environment_id: string | null;
  scope: 'tenant' | 'project' | 'environment';
}

/** The sending domain this owner (exactly this tenant, project or environment) has, if any. */
export function findDomainOfOwner(db: Db, owner: DomainOwner) {
  return db
    .selectFrom('sending_domains')
    .select('domain')
    .where('tenant_id', '=', owner.tenant_id)
    .where((eb) =>
      owner.project_id ? eb('project_id', '=', owner.project_id) : eb('project_id', 'is', null),
    )
    .where((eb) =>
      owner.environment_id
        ? eb('environment_id', '=', owner.environment_id)
        : eb('environment_id', 'is', null),
    )
    .executeTakeFirst();
}

/** The new domain (the caller has checked the tenant's claims and the verified owner). */
export function insertSendingDomain(db: Db, domain: Insertable<SendingDomainsTable>) {
  return db.insertInto('sending_domains').values(domain).returningAll().executeTakeFirstOrThrow();
}

/** The claims on a name (several tenants may claim one; one at most is verified), or one by id. */
export function findDomainsByNameOrId(db: Db, nameOrId: string) {
  return db
    .selectFrom('sending_domains')
    .selectAll()
    .where(nameOrId.startsWith('dom_') ? 'id' : 'domain', '=', nameOrId)
    .execute();
}

/** By name; one tenant's only when given. */
export function listSendingDomains(db: Db, q: { tenantId?: string }) {
  let query = db.selectFrom('sending_domains').selectAll().orderBy('domain');
  if (q.tenantId) query = query.where('tenant_id', '=', q.tenantId);
  return query.execute();
}

// ---- self-service (POST /v1/domains/*) and the domain checker (domains/domain-check-worker.ts)

/** Whose key is asking: a domain of its environment, its project or its tenant is visible to it. */
export interface DomainViewer {
  tenantId: string;
  projectId: string;
  environmentId: string;
}

function visibleTo(db: Db, v: DomainViewer) {
  return db
    .selectFrom('sending_domains')
    .selectAll()
    .where('tenant_id', '=', v.tenantId)
    .where((eb) =>
      eb.or([
        eb('environment_id', '=', v.environmentId),
        eb.and([eb('scope', '=', 'project'), eb('project_id', '=', v.projectId)]),
        eb('scope', '=', 'tenant'),
      ]),
    );
}

/** The viewer's domains, the one a send uses first (environment, project, tenant). */
export function listVisibleDomains(db: Db, v: DomainViewer) {
  return visibleTo(db, v)
    .orderBy(sql`CASE scope WHEN 'environment' THEN 0 WHEN 'project' THEN 1 ELSE 2 END`)
    .orderBy('created_at')
    .execute();
}

/** One of the viewer's domains by id (locked for a change when `forUpdate`), or undefined. */
export function findVisibleDomain(db: Db, v: DomainViewer, id: string, forUpdate = false) {
  const q = visibleTo(db, v).where('id', '=', id);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** The tenant's claim on `domain` at any scope, or undefined. */
export function findTenantClaim(db: Db, tenantId: string, domain: string) {
  return db
    .selectFrom('sending_domains')
    .select(['id', 'scope'])
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .executeTakeFirst();
}

/** Whether a tenant other than `tenantId` has `domain` verified (or degraded: still sending). */
export async function isVerifiedByAnother(db: Db, domain: string, tenantId: string): Promise<boolean> {
  const row = await db
    .selectFrom('sending_domains')
    .select('id')
    .where('domain', '=', domain)
    .where('tenant_id', '<>', tenantId)
    .where('status', 'in', ['verified', 'degraded'])
    .executeTakeFirst();
  return row !== undefined;
}

export function deleteSendingDomain(db: Db, id: string) {
  return db.deleteFrom('sending_domains').where('id', '=', id).returningAll().executeTakeFirst();
}

export type SendingDomainUpdate = Omit<Updateable<SendingDomainsTable>, 'id' | 'domain' | 'tenant_id'>;

/** Sets columns of one domain; with `claimToken`, only while that check's lease holds it. */
export function updateSendingDomain(db: Db, id: string, change: SendingDomainUpdate, claimToken?: string) {
  let q = db.updateTable('sending_domains').set(change).where('id', '=', id);
  if (claimToken !== undefined) q = q.where('check_claim_token', '=', claimToken);
  return q.returningAll().executeTakeFirst();
}

/** Claims up to `limit` domains whose check is due, oldest due first, under the lease. */
export async function claimDomainChecks(
  db: Db,
  lease: Lease,
): Promise<(SendingDomainRow & { claimToken: string })[]> {
  const { rows } = await sql<SendingDomainRow>`
    UPDATE sending_domains d
       SET check_claim_token = ${lease.claimToken}, check_locked_until = ${lease.lockedUntil}
      FROM (SELECT id FROM sending_domains
             WHERE next_check_at <= ${lease.now}
               AND (check_locked_until IS NULL OR check_locked_until < ${lease.now})
             ORDER BY next_check_at
             LIMIT ${lease.limit}
             FOR UPDATE SKIP LOCKED) due
     WHERE d.id = due.id
    RETURNING d.*`.execute(db);
  return rows.map((r) => ({ ...r, claimToken: lease.claimToken }));
}

export async function extendDomainCheckLeases(db: Db, claimTokens: string[], lockedUntil: Date) {
  if (claimTokens.length === 0) return;
  await db
    .updateTable('sending_domains')
    .set({ check_locked_until: lockedUntil })
    .where('check_claim_token', 'in', claimTokens)
    .execute();
}

/** The live environments a domain's events go to: its own, its project's or its tenant's. */
export async function environmentsOfDomain(db: Db, d: SendingDomainRow): Promise<string[]> {
  if (d.scope === 'environment') return d.environment_id ? [d.environment_id] : [];
  let q = db
    .selectFrom('environments')
    .select('id')
    .where('tenant_id', '=', d.tenant_id)
    .where('deleted_at', 'is', null);
  if (d.scope === 'project') q = q.where('project_id', '=', d.project_id!);
  return (await q.execute()).map((r) => r.id);
}

/** The embedded database's sole worker takes over checks a stopped process had claimed. */
export async function releaseDomainCheckLeases(db: Db): Promise<number> {
  const r = await db
    .updateTable('sending_domains')
    .set({ check_locked_until: null, check_claim_token: null })
    .where('check_claim_token', 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
