import type { DeleteGroupRequest, GroupMembersRequest, UpsertGroupRequest } from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { addContactsToGroup } from '../../domain/groups/add-contacts-to-group.js';
import { deleteGroup } from '../../domain/groups/delete-group.js';
import { listGroups } from '../../domain/groups/list-groups.js';
import { removeContactsFromGroup } from '../../domain/groups/remove-contacts-from-group.js';
import { upsertGroup } from '../../domain/groups/upsert-group.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

// Contacts and groups are tenant-level; any environment's key of the tenant may use them (seed
// §5 rule 4), under the same access checks as the recipients endpoints.
const ACCESS = ['trial', 'project', 'environment'] as const;

export function groupRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'upsertGroup', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await upsertGroup(deps, authOf(req), req.body as UpsertGroupRequest)),
    }),
  });
  apiRoute(app, 'listGroups', {
    access: ACCESS,
    handler: async (req) => ({ ok: true, ...(await listGroups(deps, authOf(req))) }),
  });
  apiRoute(app, 'deleteGroup', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await deleteGroup(deps, authOf(req), req.body as DeleteGroupRequest)),
    }),
  });
  apiRoute(app, 'addContactsToGroup', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await addContactsToGroup(deps, authOf(req), req.body as GroupMembersRequest)),
    }),
  });
  apiRoute(app, 'removeContactsFromGroup', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await removeContactsFromGroup(deps, authOf(req), req.body as GroupMembersRequest)),
    }),
  });
}
