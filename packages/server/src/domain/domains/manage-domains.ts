// POST /v1/domains/add, list, get, verify, rotate-dkim, delete (DESIGN.md §13): a tenant's sending
// domains, self-service with full keys. A key sees and manages its environment's domain, its
// project's and its tenant's; each change is audited in its own transaction. DNS is never asked
// here: the worker's checker does (domains/domain-check-worker.ts), so no request waits on DNS.
import type { AddDomainRequest, SendingDomain } from '@mailsvc/contract/api';
import { isUniqueViolation } from '../../db/errors.js';
import {
  type DomainOwner,
  deleteSendingDomain,
  findVisibleDomain,
  insertSendingDomain,
  listVisibleDomains,
  type SendingDomainRow,
  updateSendingDomain,
} from '../../db/repositories/sending-domains.js';
import type { Db } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { generateDkimKeyPairAsync } from '../../delivery/dkim.js';
import { recordSettings, recordsWithFindings, type StoredCheck } from '../../domains/domain-records.js';
import { nextPendingCheck } from '../../domains/lifecycle.js';
import { ApiError } from '../../errors.js';
import { auditKeyAction } from '../audit/audit-key-action.js';
import { type AuthContext, requireTenantWide } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { checkDomainName } from './domain-name.js';
import { checkNewClaim, newDomainRow } from './new-domain.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** POST verify asks DNS about a domain at most this often. */
const VERIFY_SPACING_MS = 60_000;

/** A domain as the API shows it: the records with what the last check found. */
export function toSendingDomain(deps: Pick<Deps, 'config' | 'clock'>, d: SendingDomainRow): SendingDomain {
  const check = d.last_check as StoredCheck | null;
  return {
    domainId: d.id,
    domain: d.domain,
    scope: d.scope,
    status: d.status,
    statusSince: d.status_since.toISOString(),
    returnPath: { host: `bounces.${d.domain}`, status: d.return_path_status },
    dkimSelector: d.dkim_selector ?? '',
    records: recordsWithFindings(d, recordSettings(deps.config), deps.clock.now()),
    dmarc: check?.dmarc ? { policy: check.dmarc.policy, alignment: check.dmarc.alignment } : null,
    verifiedAt: iso(d.verified_at),
    lastCheckedAt: iso(d.last_checked_at),
    nextCheckAt: iso(d.next_check_at),
    createdAt: d.created_at.toISOString(),
  };
}

function ownerOf(auth: AuthContext, scope: AddDomainRequest['scope']): DomainOwner {
  if (scope === 'tenant') return { tenant_id: auth.tenantId, project_id: null, environment_id: null, scope };
  if (scope === 'project')
    return { tenant_id: auth.tenantId, project_id: auth.projectId, environment_id: null, scope };
  return {
    tenant_id: auth.tenantId,
    project_id: auth.projectId,
    environment_id: auth.environmentId,
    scope: 'environment',
  };
}

function audit(db: Db, auth: AuthContext, action: string, d: SendingDomainRow, now: Date, details = {}) {
  const target = { type: 'sending_domain', id: d.id };
  return auditKeyAction(db, auth, action, target, { domain: d.domain, scope: d.scope, ...details }, now);
}

async function findOwn(db: Db, auth: AuthContext, domainId: string, forUpdate = false) {
  const d = await findVisibleDomain(db, auth, domainId, forUpdate);
  if (!d)
    throw new ApiError(
      'domain_not_found',
      'No sending domain with this id for the key’s environment, project or tenant.',
    );
  return d;
}

export async function addDomain(deps: Deps, auth: AuthContext, input: AddDomainRequest) {
  const domain = checkDomainName(deps.config, input.domain);
  const owner = ownerOf(auth, input.scope);
  requireTenantWide(auth, owner.scope);
  const now = deps.clock.now();
  // refused before the key is made (50-200 ms of CPU), and again under the transaction
  await checkNewClaim(deps.db, owner, domain);
  const dkim = await generateDkimKeyPairAsync(now);
  try {
    const row = await inTransaction(deps.db, async (trx) => {
      await checkNewClaim(trx, owner, domain);
      const created = await insertSendingDomain(trx, newDomainRow(owner, domain, dkim, now));
      await audit(trx, auth, 'domain.added', created, now);
      return created;
    });
    return { domain: toSendingDomain(deps, row) };
  } catch (err) {
    // two adds at once: the loser meets the unique index the checks above stand for
    if (isUniqueViolation(err))
      throw new ApiError(
        'domain_already_added',
        `${domain}, or a domain for this ${owner.scope}, was just added.`,
      );
    throw err;
  }
}

export async function listDomains(deps: Deps, auth: AuthContext) {
  return { domains: (await listVisibleDomains(deps.db, auth)).map((d) => toSendingDomain(deps, d)) };
}

export async function getDomain(deps: Deps, auth: AuthContext, domainId: string) {
  return { domain: toSendingDomain(deps, await findOwn(deps.db, auth, domainId)) };
}

/** Checks now; a failed domain starts over as pending (its 72 h begin again). */
export async function verifyDomain(deps: Deps, auth: AuthContext, domainId: string) {
  const now = deps.clock.now();
  const row = await inTransaction(deps.db, async (trx) => {
    const d = await findOwn(trx, auth, domainId, true);
    const restart = d.status === 'failed';
    // a check under way decides; and a domain is asked about at most once a minute, however
    // often verify is called (each check is several queries to name servers the tenant picks)
    const at = new Date(Math.max(now.getTime(), (d.last_checked_at?.getTime() ?? 0) + VERIFY_SPACING_MS));
    if (!restart && d.next_check_at && d.next_check_at <= at) return d;
    const after = await updateSendingDomain(trx, d.id, {
      next_check_at: at,
      updated_at: now,
      ...(restart && { status: 'pending', status_since: now, bad_checks: 0 }),
    });
    await audit(trx, auth, 'domain.verify_requested', d, now, { status: d.status, restarted: restart });
    return after!;
  });
  return { domain: toSendingDomain(deps, row) };
}

/** 409 dkim_rotation_conflict unless the domain signs and no rotation is under way. */
function checkRotation(d: SendingDomainRow, now: Date): void {
  if (d.status !== 'verified' && d.status !== 'degraded')
    throw new ApiError(
      'dkim_rotation_conflict',
      `${d.domain} is ${d.status}: only a verified domain's key rotates (its current key is not in use yet).`,
    );
  if (d.dkim_next_selector)
    throw new ApiError(
      'dkim_rotation_conflict',
      `A rotation of ${d.domain} already waits for its record at ${d.dkim_next_selector}._domainkey.${d.domain}.`,
    );
  if (d.dkim_old_until && d.dkim_old_until > now)
    throw new ApiError(
      'dkim_rotation_conflict',
      `The last rotation of ${d.domain} keeps its retiring key ${d.dkim_old_selector} until ${d.dkim_old_until.toISOString()}: rotate again after that.`,
    );
}

/** A next key at a new selector; the checker switches the signer once its record verifies. */
export async function rotateDomainDkim(deps: Deps, auth: AuthContext, domainId: string) {
  const now = deps.clock.now();
  // refused before the key is made (50-200 ms of the thread pool), and again under the lock
  const current = await findOwn(deps.db, auth, domainId);
  requireTenantWide(auth, current.scope);
  checkRotation(current, now);
  const pair = await generateDkimKeyPairAsync(now, [current.dkim_selector, current.dkim_old_selector]);
  const row = await inTransaction(deps.db, async (trx) => {
    const d = await findOwn(trx, auth, domainId, true);
    checkRotation(d, now);
    const after = await updateSendingDomain(trx, d.id, {
      dkim_next_selector: pair.selector,
      dkim_next_private_key: pair.privateKeyPem,
      dkim_next_public_key: pair.publicKeyPem,
      next_check_at: nextPendingCheck(now, now),
      updated_at: now,
    });
    await audit(trx, auth, 'domain.dkim_rotation_started', d, now, { selector: pair.selector });
    return after!;
  });
  return { domain: toSendingDomain(deps, row) };
}

export async function deleteDomain(deps: Deps, auth: AuthContext, domainId: string): Promise<void> {
  const now = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    const d = await findOwn(trx, auth, domainId, true);
    requireTenantWide(auth, d.scope);
    await deleteSendingDomain(trx, d.id);
    await audit(trx, auth, 'domain.deleted', d, now, { status: d.status });
  });
}
