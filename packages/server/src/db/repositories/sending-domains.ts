// Sending domains: as the admin use-cases register and change them, and as the dev inbox reads
// them (the public half of a domain's DKIM key, the TXT record at <selector>._domainkey.<domain>).
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, SendingDomainsTable } from '../schema.js';

/** The public key (PEM) of `domain`'s DKIM selector, whatever the domain's status; null if none. */
export async function findDkimPublicKey(db: Db, domain: string, selector: string): Promise<string | null> {
  const row = await db
    .selectFrom('sending_domains')
    .select('dkim_public_key')
    .where('domain', '=', domain.toLowerCase())
    .where('dkim_selector', '=', selector)
    .where('dkim_public_key', 'is not', null)
    .executeTakeFirst();
  return row?.dkim_public_key ?? null;
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

/** The new domain, or undefined when the name is registered already (by anyone). */
export function insertSendingDomain(db: Db, domain: Insertable<SendingDomainsTable>) {
  return db
    .insertInto('sending_domains')
    .values(domain)
    .onConflict((oc) => oc.column('domain').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export type SendingDomainChange = Pick<Updateable<SendingDomainsTable>, 'status' | 'return_path_status'>;

/** The changed domain, or undefined when `domain` is not registered. */
export function changeSendingDomain(db: Db, domain: string, change: SendingDomainChange, now: Date) {
  return db
    .updateTable('sending_domains')
    .set({ ...change, updated_at: now })
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirst();
}

/** By name; one tenant's only when given. */
export function listSendingDomains(db: Db, q: { tenantId?: string }) {
  let query = db.selectFrom('sending_domains').selectAll().orderBy('domain');
  if (q.tenantId) query = query.where('tenant_id', '=', q.tenantId);
  return query.execute();
}
