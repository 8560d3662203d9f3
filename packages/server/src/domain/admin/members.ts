// `mailsvc admin members invite|list`: the operator invites a tenant's first owner (and may invite
// anyone); the invitation is mailed from the system environment (domain/console/members.ts).
import { MEMBER_ROLES } from '@mailsvc/contract/roles';
import { type Static, Type } from '@sinclair/typebox';
import { inviteMember, listMembers } from '../console/members.js';
import type { Deps } from '../deps.js';
import { IdOf, Name, Strict } from './schemas.js';
import { type AdminDeps, requireTenant } from './scope.js';

export const InviteMemberInput = Strict({
  tenant: IdOf('ten'),
  email: Type.String({ minLength: 3, maxLength: 254 }),
  role: Type.Union(MEMBER_ROLES.map((r) => Type.Literal(r))),
  name: Type.Optional(Name),
});

/** Not in an admin transaction: the invitation is sent once the member is written. */
export function inviteMemberByOperator(
  deps: AdminDeps,
  input: Static<typeof InviteMemberInput>,
  actor: string,
) {
  return inviteMember(
    deps as Deps,
    { kind: 'operator', name: actor },
    {
      tenantId: input.tenant,
      email: input.email,
      role: input.role,
      name: input.name ?? null,
    },
  );
}

export const ListMembersInput = Strict({ tenant: IdOf('ten') });

export async function listTenantMembersByOperator(deps: AdminDeps, input: Static<typeof ListMembersInput>) {
  await requireTenant(deps.db, input.tenant);
  return listMembers(deps as Deps, input.tenant);
}
