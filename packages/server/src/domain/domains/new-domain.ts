// A new claim on a sending domain, the one rule for POST /v1/domains/add and `mailsvc admin
// domains add` (DESIGN.md §13): a tenant claims a name once, a scope has one domain, and a name
// another tenant has verified is refused (a pending claim blocks no one).
import type { Insertable } from 'kysely';
import {
  type DomainOwner,
  findDomainOfOwner,
  findTenantClaim,
  isVerifiedByAnother,
} from '../../db/repositories/sending-domains.js';
import type { Db, SendingDomainsTable } from '../../db/schema.js';
import type { DkimKeyPair } from '../../delivery/dkim.js';
import { nextPendingCheck, VERIFIED_RECHECK_MS } from '../../domains/lifecycle.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';

/** Refuses a claim the rules do not allow (409); call in the transaction that inserts it. */
export async function checkNewClaim(db: Db, owner: DomainOwner, domain: string): Promise<void> {
  const claimed = await findTenantClaim(db, owner.tenant_id, domain);
  if (claimed)
    throw new ApiError(
      'domain_already_added',
      `This tenant has added ${domain} already (${claimed.id}, for its ${claimed.scope}).`,
    );
  const taken = await findDomainOfOwner(db, owner);
  if (taken)
    throw new ApiError(
      'domain_already_added',
      `This ${owner.scope} already has the sending domain ${taken.domain}; delete it first.`,
    );
  if (await isVerifiedByAnother(db, domain, owner.tenant_id))
    throw new ApiError(
      'domain_claimed',
      `Another tenant has verified ${domain}; one tenant at a time may send from a domain.`,
    );
}

export function newDomainRow(
  owner: DomainOwner,
  domain: string,
  dkim: DkimKeyPair,
  now: Date,
): Insertable<SendingDomainsTable> {
  return {
    id: newId('dom', now.getTime()),
    domain,
    ...owner,
    status: 'pending',
    status_since: now,
    dkim_selector: dkim.selector,
    dkim_private_key: dkim.privateKeyPem,
    dkim_public_key: dkim.publicKeyPem,
    dkim_created_at: now,
    next_check_at: nextPendingCheck(now, now),
    created_at: now,
    updated_at: now,
  };
}

/** When a domain set to `status` (by the operator, or by POST verify) is checked next. */
export function statusCheckAt(status: 'pending' | 'verified' | 'failed', now: Date): Date | null {
  if (status === 'pending') return now;
  if (status === 'verified') return new Date(now.getTime() + VERIFIED_RECHECK_MS);
  return null;
}
