// POST /v1/suppressions/add (DESIGN.md §12): the app stops all mail to an address of the key's
// environment — reason manual, until `until` or until removed, with an optional note — audited in
// the same transaction with the state before. Sends of every category then answer 403
// recipient_suppressed, and queued mail to it ends `suppressed` at its claim (the eligibility
// rule, db/functions/recipient_refusal.sql).
import type { AddSuppressionRequest, Suppression } from '@mailsvc/contract/api';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import { findRecipient } from '../../db/repositories/recipients.js';
import { addManualSuppression } from '../../db/repositories/suppressions.js';
import { type AuthContext, actorOf } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail } from '../email.js';
import { recipientStateName } from '../recipients/eligibility.js';
import { futureTime } from '../time-fields.js';
import { suppressionAddress, toSuppression } from './suppression-entry.js';

export async function addSuppression(
  deps: Deps,
  auth: AuthContext,
  input: AddSuppressionRequest,
): Promise<{ suppression: Suppression }> {
  const email = suppressionAddress(input.email);
  const now = deps.clock.now();
  const until = input.until === undefined ? null : futureTime(input.until, now, 'until', '/until');
  const emailMasked = maskEmail(email);
  const row = await deps.db.transaction().execute(async (trx) => {
    const previousState = recipientStateName(await findRecipient(trx, auth.environmentId, email, now));
    const added = await addManualSuppression(
      trx,
      { environmentId: auth.environmentId, tenantId: auth.tenantId, email, until, note: input.note ?? null },
      now,
    );
    await insertAuditEvent(
      trx,
      {
        tenantId: auth.tenantId,
        actor: actorOf(auth),
        action: 'suppression.added',
        targetType: 'recipient',
        targetId: `${auth.environmentId}:${emailMasked}`,
        // the note is the app's words about a person: not copied into the audit trail
        details: {
          environmentId: auth.environmentId,
          emailMasked,
          reason: 'manual',
          until: until?.toISOString() ?? null,
          previousState,
        },
      },
      now,
    );
    return added;
  });
  deps.log.info({ environmentId: auth.environmentId, emailMasked }, 'suppression added');
  return { suppression: toSuppression(row) };
}
