// The mail the console sends to people (sign-in codes, invitations) goes through mailsvc's own send
// use-case, from a system environment made on first use (DESIGN.md §14): the same checks, queue,
// delivery and consent rules as any app's mail, and on a fresh `mailsvc start` it lands in the dev
// inbox. The system environment's send key never leaves the process (its secret is not kept).
import { findKeyScope, insertApiKey } from '../../db/repositories/api-keys.js';
import { ensureDemoScope } from '../../db/repositories/tenancy.js';
import { type AuthContext, toAuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { generateApiKey } from '../keys/api-key.js';
import { sendEmail } from '../send/send-email.js';

/** The system tenant, project and environment (found by these names, made where missing). */
export const SYSTEM_SCOPE = {
  planId: 'system',
  monthlyLimit: 10_000_000,
  tenantName: 'mailsvc system',
  projectName: 'mailsvc',
  supportEmail: 'support@example.com',
  environmentName: 'system',
} as const;

const senders = new WeakMap<Deps, Promise<AuthContext>>();

async function systemSender(deps: Deps): Promise<AuthContext> {
  const now = deps.clock.now();
  const scope = await ensureDemoScope(deps.db, SYSTEM_SCOPE, now);
  const existing = await deps.db
    .selectFrom('api_keys')
    .select('id')
    .where('environment_id', '=', scope.environmentId)
    .where('revoked_at', 'is', null)
    .where('session_id', 'is', null)
    .where('scope', '=', 'send')
    .orderBy('id')
    .executeTakeFirst();
  let keyId = existing?.id;
  if (!keyId) {
    const key = generateApiKey(now.getTime());
    await insertApiKey(deps.db, {
      id: key.id,
      tenant_id: scope.tenantId,
      environment_id: scope.environmentId,
      secret_sha256: key.secretSha256,
      hint: key.hint,
      scope: 'send',
      template_categories: null,
      name: 'console mail (system)',
      created_at: now,
    });
    keyId = key.id;
  }
  const row = await findKeyScope(deps.db, keyId);
  if (!row) throw new Error('the system send key vanished');
  return toAuthContext(row, now);
}

/** Sends one catalogue template from the system environment; answers the message id. */
export async function sendSystemMail(
  deps: Deps,
  templateId: 'login-code' | 'invitation' | 'action-required',
  to: string,
  data: Record<string, unknown>,
): Promise<string> {
  let sender = senders.get(deps);
  if (!sender) {
    sender = systemSender(deps);
    senders.set(deps, sender);
    sender.catch(() => senders.delete(deps));
  }
  const auth = await sender;
  const result = await sendEmail(deps, auth, { templateId, to, data }, undefined);
  return result.messageId;
}
