// Unsubscribe from a link (DESIGN §5): the signed token is the only authority. It names the
// environment, the address and the scope; the environment decides the tenant. No API key, no
// session: whoever holds the link is the recipient it was mailed to.
import { insertAuditEvent } from '../../db/repositories/audit.js';
import {
  findEnvironmentForConsent,
  isUnsubscribedNow,
  markUnsubscribed,
} from '../../db/repositories/recipients.js';
import type { Deps } from '../deps.js';
import { maskEmail, parseEmail } from '../email.js';
import { type UnsubscribeTarget, verifyUnsubscribeToken } from './unsubscribe-token.js';

export type UnsubscribeSource = 'one_click' | 'page';

/** What the page may show: never the full address. */
export interface UnsubscribeLink {
  target: UnsubscribeTarget;
  emailMasked: string;
  projectName: string;
  isUnsubscribed: boolean;
}

/** The genuine token's target with its address normalised; null for anything else. */
export function readUnsubscribeToken(deps: Deps, token: string): UnsubscribeTarget | null {
  const target = verifyUnsubscribeToken(deps.keys.unsubscribe, token);
  if (!target) return null;
  const email = parseEmail(target.email);
  return email.ok ? { ...target, email: email.address } : null;
}

/** For the confirmation page; reads only. Null when the environment no longer exists. */
export async function describeUnsubscribeLink(
  deps: Deps,
  target: UnsubscribeTarget,
): Promise<UnsubscribeLink | null> {
  const env = await findEnvironmentForConsent(deps.db, target.environmentId);
  if (!env) return null;
  return {
    target,
    emailMasked: maskEmail(target.email),
    projectName: env.projectDisplayName || env.projectName,
    isUnsubscribed: await isUnsubscribedNow(deps.db, target.environmentId, target.email),
  };
}

/**
 * Idempotent: the first unsubscribe sets unsubscribed_at and writes one audit event; later ones
 * change nothing. Null when the environment no longer exists.
 */
export async function unsubscribeRecipient(
  deps: Deps,
  target: UnsubscribeTarget,
  source: UnsubscribeSource,
): Promise<(UnsubscribeLink & { hasChanged: boolean }) | null> {
  const env = await findEnvironmentForConsent(deps.db, target.environmentId);
  if (!env) return null;
  const now = deps.clock.now();
  const emailMasked = maskEmail(target.email);
  const hasChanged = await deps.db.transaction().execute(async (trx) => {
    const changed = await markUnsubscribed(
      trx,
      { environmentId: env.environmentId, tenantId: env.tenantId, email: target.email },
      now,
    );
    if (changed) {
      await insertAuditEvent(
        trx,
        {
          tenantId: env.tenantId,
          actor: 'recipient',
          action: 'recipient.unsubscribed',
          targetType: 'recipient',
          // The audit trail carries no full address: environment plus masked address.
          targetId: `${env.environmentId}:${emailMasked}`,
          details: { environmentId: env.environmentId, emailMasked, scope: target.scope, source },
        },
        now,
      );
    }
    return changed;
  });
  deps.log.info(
    { environmentId: env.environmentId, emailMasked, scope: target.scope, source, hasChanged },
    'recipient unsubscribed',
  );
  return {
    target,
    emailMasked,
    projectName: env.projectDisplayName || env.projectName,
    isUnsubscribed: true,
    hasChanged,
  };
}
