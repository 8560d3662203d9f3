// Why a send's custom domain is not ready (403 sending_domain_not_ready, DESIGN.md §13): its status
// and the required records its last DNS check saw missing or wrong, for the error's `details`.
// Read only when a send is refused, never on the accept path of one that goes.
import type { Db } from '../../db/schema.js';
import { failingRecords } from '../../domains/domain-events.js';
import type { StoredCheck } from '../../domains/domain-records.js';

export interface DomainNotReady {
  status: string;
  records: ReturnType<typeof failingRecords>;
}

export async function domainNotReady(
  db: Db,
  tenantId: string,
  domain: string,
): Promise<DomainNotReady | undefined> {
  const row = await db
    .selectFrom('sending_domains')
    .select(['status', 'last_check', 'dkim_selector', 'dkim_next_selector'])
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  if (!row) return undefined;
  const check = row.last_check as StoredCheck | null;
  return {
    status: row.status,
    records: check ? failingRecords(check.records, row).filter((r) => r.purpose === 'dkim') : [],
  };
}
