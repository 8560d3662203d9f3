// An audit event of what an API key did to one of its environment's records (a webhook endpoint,
// a sending domain): the key as the actor, the key's environment as the event's.
import { insertAuditEvent } from '../../db/repositories/audit.js';
import type { Db } from '../../db/schema.js';
import { type AuthContext, actorOf } from '../auth/authenticate.js';

export function auditKeyAction(
  db: Db,
  auth: AuthContext,
  action: string,
  target: { type: string; id: string },
  details: Record<string, unknown>,
  now: Date,
): Promise<void> {
  return insertAuditEvent(
    db,
    {
      tenantId: auth.tenantId,
      environmentId: auth.environmentId,
      actor: actorOf(auth),
      action,
      targetType: target.type,
      targetId: target.id,
      details,
    },
    now,
  );
}
