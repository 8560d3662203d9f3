// POST /v1/recipients/resubscribe (seed §3 rule 3, DESIGN.md §5): the explicit opt-in. Clears a
// notification unsubscribe in the key's environment and sets resubscribedAt; never a complaint,
// a cooldown or a suppression. One audit event per call, in the same transaction.
import type { ResubscribeRequest } from '@mailsvc/contract/api';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import { findRecipient, markResubscribed } from '../../db/repositories/recipients.js';
import { ApiError } from '../../errors.js';
import { type AuthContext, actorOf } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail, parseEmail } from '../email.js';
import { recipientStateName } from './eligibility.js';

export const RESUBSCRIBE_INVALID =
  'Invalid resubscribe request: expected a valid email and scope app_notifications.';

export async function resubscribeRecipient(
  deps: Deps,
  auth: AuthContext,
  input: ResubscribeRequest,
): Promise<Record<string, never>> {
  const parsed = parseEmail(input.email);
  if (!parsed.ok)
    throw new ApiError('invalid_request', RESUBSCRIBE_INVALID, [{ path: '/email', message: parsed.reason }]);
  const now = deps.clock.now();
  const emailMasked = maskEmail(parsed.address);
  const { previousState, hasChanged } = await deps.db.transaction().execute(async (trx) => {
    const previousState = recipientStateName(
      await findRecipient(trx, auth.environmentId, parsed.address, now),
    );
    const hasChanged = await markResubscribed(
      trx,
      { environmentId: auth.environmentId, email: parsed.address },
      now,
    );
    await insertAuditEvent(
      trx,
      {
        tenantId: auth.tenantId,
        actor: actorOf(auth),
        action: 'recipient.resubscribed',
        targetType: 'recipient',
        targetId: `${auth.environmentId}:${emailMasked}`,
        details: {
          environmentId: auth.environmentId,
          emailMasked,
          scope: input.scope,
          previousState,
          hasChanged,
        },
      },
      now,
    );
    return { previousState, hasChanged };
  });
  deps.log.info(
    { environmentId: auth.environmentId, emailMasked, previousState, hasChanged },
    'recipient resubscribed',
  );
  return {};
}
