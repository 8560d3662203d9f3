// POST /v1/suppressions/remove (DESIGN.md §12): the app lifts its own suppression of an address and
// a hard-bounce cooldown or suppression (the bounce streak restarts; the lifetime count stays),
// audited in the same transaction with the state before. Never a complaint (the operator's to
// clear: `mailsvc admin recipients clear-complaint`) and never an unsubscribe (only the
// recipient's opt-in clears it, POST /v1/recipients/resubscribe: seed rule 3): 403
// suppression_not_removable. Nothing of the named reason (or of either) standing: 404
// suppression_not_found.
import type {
  RemoveSuppressionRequest,
  RemoveSuppressionResponse,
  SuppressionReason,
} from '@mailsvc/contract/api';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import { findRecipient } from '../../db/repositories/recipients.js';
import { liftBounceHold } from '../../db/repositories/recipients-admin.js';
import { clearManualSuppression, listSuppressionRows } from '../../db/repositories/suppressions.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { type AuthContext, actorOf } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail } from '../email.js';
import { recipientStateName } from '../recipients/eligibility.js';
import { suppressionAddress, toSuppression } from './suppression-entry.js';

const REMOVABLE = ['hard_bounce', 'manual'] as const satisfies readonly SuppressionReason[];
type Removable = (typeof REMOVABLE)[number];
const isRemovable = (r: SuppressionReason): r is Removable => (REMOVABLE as readonly string[]).includes(r);

/** 403 for a complaint or an unsubscribe, worded by whether the address has one. */
function notRemovable(reason: SuppressionReason, standing: readonly SuppressionReason[]): ApiError {
  const rule =
    reason === 'complaint'
      ? 'A complaint is never removed through the API: only the operator clears one (mailsvc admin recipients clear-complaint).'
      : 'An unsubscribe is never removed through the API: only the recipient’s own opt-in clears it, through POST /v1/recipients/resubscribe.';
  const has = standing.includes(reason);
  const noun = reason === 'complaint' ? 'complaint' : 'unsubscribe';
  return new ApiError(
    'suppression_not_removable',
    `${rule} ${has ? 'This address has one.' : `This address has no ${noun}.`}`,
    [{ path: has ? '/email' : '/reason', message: has ? `suppressed by ${reason}` : `has no ${noun}` }],
  );
}

const lift: Record<
  Removable,
  (db: Db, q: { environmentId: string; email: string }, now: Date) => Promise<number>
> = {
  hard_bounce: liftBounceHold,
  manual: clearManualSuppression,
};

export async function removeSuppression(
  deps: Deps,
  auth: AuthContext,
  input: RemoveSuppressionRequest,
): Promise<Omit<RemoveSuppressionResponse, 'ok'>> {
  const email = suppressionAddress(input.email);
  const now = deps.clock.now();
  const emailMasked = maskEmail(email);
  const q = { environmentId: auth.environmentId, email };
  const entries = (trx: Db) =>
    listSuppressionRows(trx, { ...q, reasons: [...REMOVABLE, 'complaint', 'unsubscribed'], limit: 4, now });
  const result = await deps.db.transaction().execute(async (trx) => {
    const standing = (await entries(trx)).map((e) => e.reason);
    if (input.reason !== undefined && !isRemovable(input.reason)) throw notRemovable(input.reason, standing);
    const targets = (input.reason !== undefined ? [input.reason] : REMOVABLE).filter(
      (r): r is Removable => isRemovable(r) && standing.includes(r),
    );
    if (targets.length === 0) {
      const kept = standing.find((r) => !isRemovable(r));
      if (input.reason === undefined && kept) throw notRemovable(kept, standing);
      throw new ApiError(
        'suppression_not_found',
        `The address has no ${input.reason === undefined ? 'manual or hard-bounce' : input.reason} suppression in this environment.`,
        [{ path: input.reason === undefined ? '/email' : '/reason', message: 'nothing of this to remove' }],
      );
    }
    const previousState = recipientStateName(await findRecipient(trx, auth.environmentId, email, now));
    for (const reason of targets) await lift[reason](trx, q, now);
    await insertAuditEvent(
      trx,
      {
        tenantId: auth.tenantId,
        actor: actorOf(auth),
        action: 'suppression.removed',
        targetType: 'recipient',
        targetId: `${auth.environmentId}:${emailMasked}`,
        details: { environmentId: auth.environmentId, emailMasked, removed: targets, previousState },
      },
      now,
    );
    return { removed: targets, remaining: (await entries(trx)).map(toSuppression) };
  });
  deps.log.info(
    { environmentId: auth.environmentId, emailMasked, removed: result.removed },
    'suppression removed',
  );
  return result;
}
