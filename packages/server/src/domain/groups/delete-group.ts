// POST /v1/contacts/groups/delete (DESIGN.md §7): deletes a group of the key's tenant and its
// memberships, never a contact. Unknown slug: 404 group_not_found (an extension). One audit event,
// in the same transaction.
import type { DeleteGroupRequest } from '@mailsvc/contract/api';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import { deleteGroupRow } from '../../db/repositories/groups.js';
import { type AuthContext, actorOf } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { groupNotFound } from './contact-group.js';

export async function deleteGroup(
  deps: Deps,
  auth: AuthContext,
  input: DeleteGroupRequest,
): Promise<Record<string, never>> {
  const now = deps.clock.now();
  const memberships = await deps.db.transaction().execute(async (trx) => {
    const deleted = await deleteGroupRow(trx, auth.tenantId, input.groupSlug);
    if (!deleted) throw groupNotFound(input.groupSlug);
    await insertAuditEvent(
      trx,
      {
        tenantId: auth.tenantId,
        actor: actorOf(auth),
        action: 'contact_group.deleted',
        targetType: 'contact_group',
        targetId: input.groupSlug,
        details: { name: deleted.name, memberships: deleted.memberships },
      },
      now,
    );
    return deleted.memberships;
  });
  deps.log.info(
    { tenantId: auth.tenantId, groupSlug: input.groupSlug, memberships },
    'contact group deleted',
  );
  return {};
}
