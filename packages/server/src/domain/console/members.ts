// A tenant's team (DESIGN.md §14): the operator invites the first owner (mailsvc admin members
// invite); owners and admins invite the rest. Only an owner makes, changes or removes an owner, and
// a tenant always keeps one. A removed member's sessions end at once where no membership is left,
// and its credentials stop on their next request (authentication reads the membership each time).
import { type MemberRole, roleAtLeast } from '@mailsvc/contract/roles';
import { isUniqueViolation } from '../../db/errors.js';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import {
  countOwnersForUpdate,
  countRecentInvitations,
  findMemberByEmail,
  findTenantMember,
  insertMember,
  invitationMailbox,
  listTenantMembers,
  type MemberRow,
  markMemberRemoved,
  revokeSessionsWithoutMembership,
  setMemberRole,
} from '../../db/repositories/console-people.js';
import type { Db } from '../../db/schema.js';
import { inTransaction, lockUntilCommit } from '../../db/transaction.js';
import { ApiError, retryLater } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Deps } from '../deps.js';
import { maskEmail } from '../email.js';
import { normaliseAddress } from './sign-in.js';
import { SYSTEM_SCOPE, sendSystemMail } from './system-mail.js';

/** Who acts on a team: a member (its role in the tenant) or the operator (every power). */
export type TeamActor =
  | { kind: 'member'; id: string; email: string; role: MemberRole; projectIds: readonly string[] | null }
  | { kind: 'operator'; name: string };

const actorName = (a: TeamActor) => (a.kind === 'member' ? `member:${a.id}` : a.name);

export const toMemberInfo = (m: MemberRow) => ({
  id: m.id,
  email: m.email,
  name: m.name,
  role: m.role,
  projectIds: m.project_ids,
  status: m.status,
  createdAt: m.created_at.toISOString(),
  lastSignInAt: m.last_sign_in_at?.toISOString() ?? null,
});

function requireTeamPower(actor: TeamActor, touches: readonly MemberRole[]): void {
  if (actor.kind === 'operator') return;
  if (!roleAtLeast(actor.role, 'admin'))
    throw new ApiError(
      'insufficient_role',
      `Your role (${actor.role}) cannot manage the team; ask an owner or admin.`,
    );
  if (touches.includes('owner') && actor.role !== 'owner')
    throw new ApiError('insufficient_role', 'Only an owner can make, change or remove an owner.');
  // A member limited to some projects could otherwise invite an unlimited one, or change members
  // of projects it does not reach.
  if (actor.projectIds !== null)
    throw new ApiError(
      'insufficient_role',
      'You are a member of some projects only: the team is managed by members of every project.',
    );
}

async function requireTenantProjects(db: Db, tenantId: string, projectIds: readonly string[] | null) {
  if (projectIds === null) return;
  const found = await db
    .selectFrom('projects')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .where('id', 'in', projectIds.length > 0 ? [...projectIds] : [''])
    .execute();
  const known = new Set(found.map((p) => p.id));
  const problems = projectIds.flatMap((id, i) =>
    known.has(id) ? [] : [{ path: `/projectIds/${i}`, message: 'is not a project of the tenant' }],
  );
  if (problems.length > 0)
    throw new ApiError('invalid_request', 'projectIds names unknown projects.', problems);
}

export async function listMembers(deps: Deps, tenantId: string) {
  return { members: (await listTenantMembers(deps.db, tenantId)).map(toMemberInfo) };
}

export interface InviteInput {
  tenantId: string;
  email: string;
  name?: string | null;
  role: MemberRole;
  projectIds?: string[] | null;
}

/**
 * Each invitation mails the address from the system environment, outside the tenant's quota. A
 * team's members may invite one mailbox (the address without a +tag) 5 times a day (removing and
 * inviting again counts), one mailbox is invited at most 20 times a day in all teams, and a team
 * invites at most 50 people an hour. The operator (the admin CLI and API) is not limited.
 */
export const INVITATIONS_PER_MAILBOX_PER_TEAM_PER_DAY = 5;
export const INVITATIONS_PER_MAILBOX_PER_DAY = 20;
export const INVITATIONS_PER_TEAM_PER_HOUR = 50;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/** Counted under the tenant's and the mailbox's locks: parallel invitations cannot all see room. */
async function refuseOverInvitationLimits(trx: Db, tenantId: string, email: string, now: Date) {
  // always the tenant's lock first, then the mailbox's: no two invitations wait for each other
  await lockUntilCommit(trx, `invite-tenant:${tenantId}`);
  await lockUntilCommit(trx, `invite-mailbox:${invitationMailbox(email)}`);
  const recent = await countRecentInvitations(trx, email, tenantId, {
    day: new Date(now.getTime() - DAY_MS),
    hour: new Date(now.getTime() - HOUR_MS),
  });
  if (recent.tenantLastHour >= INVITATIONS_PER_TEAM_PER_HOUR)
    throw retryLater(
      `This team invited ${INVITATIONS_PER_TEAM_PER_HOUR} people in the last hour; wait and invite again.`,
      HOUR_MS / 1000,
    );
  if (
    recent.mailboxHere >= INVITATIONS_PER_MAILBOX_PER_TEAM_PER_DAY ||
    recent.mailboxAnywhere >= INVITATIONS_PER_MAILBOX_PER_DAY
  )
    throw retryLater(
      `${maskEmail(email)} was invited too often in the last day; try again tomorrow.`,
      DAY_MS / 1000,
    );
}

/** Adds a member (status invited until its first sign-in) and mails the invitation. */
export async function inviteMember(deps: Deps, actor: TeamActor, input: InviteInput) {
  requireTeamPower(actor, [input.role]);
  const email = normaliseAddress(input.email);
  const tenant = await deps.db
    .selectFrom('tenants')
    .select(['id', 'name'])
    .where('id', '=', input.tenantId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!tenant) throw new ApiError('not_found', `No tenant ${input.tenantId}.`);
  // The system tenant's mail is everyone's sign-in codes: it has no members.
  if (tenant.name === SYSTEM_SCOPE.tenantName)
    throw new ApiError('invalid_request', 'The system tenant has no members.', [
      { path: '/tenantId', message: 'is the system tenant' },
    ]);
  await requireTenantProjects(deps.db, tenant.id, input.projectIds ?? null);
  const now = deps.clock.now();
  const already = () =>
    new ApiError('member_already_added', `${maskEmail(email)} is a member of this tenant already.`);
  const member = await inTransaction(deps.db, async (trx) => {
    if (await findMemberByEmail(trx, tenant.id, email)) throw already();
    if (actor.kind === 'member') await refuseOverInvitationLimits(trx, tenant.id, email, now);
    const row = await insertMember(
      trx,
      {
        id: newId('mem', now.getTime()),
        tenantId: tenant.id,
        email,
        name: input.name ?? null,
        role: input.role,
        projectIds: input.projectIds ?? null,
        invitedBy: actorName(actor),
      },
      now,
    );
    await insertAuditEvent(
      trx,
      {
        tenantId: tenant.id,
        actor: actorName(actor),
        action: 'member.invited',
        targetType: 'member',
        targetId: row.id,
        details: { email: maskEmail(email), role: row.role, projectIds: row.project_ids },
      },
      now,
    );
    return row;
  }).catch((err: unknown) => {
    // Two invitations of one address at once: the unique index lets one in, the other is told.
    if (isUniqueViolation(err, 'members_tenant_email_idx')) throw already();
    throw err;
  });
  await sendSystemMail(deps, 'invitation', email, {
    invitationDetails: {
      teamName: tenant.name,
      role: input.role,
      ...(actor.kind === 'member' && { invitedBy: actor.email }),
    },
    intro: `You have been invited to the ${tenant.name} team on mailsvc. Sign in with this address: a code will be mailed to it.`,
    actionButton: { label: 'Open the console', url: `${deps.config.MAILSVC_PUBLIC_URL}/console/sign-in` },
  });
  return { member: toMemberInfo(member) };
}

/** The member's row, locked until the change commits (a concurrent change waits and re-reads). */
async function requireMember(db: Db, tenantId: string, memberId: string) {
  const member = await findTenantMember(db, tenantId, memberId, true);
  if (!member) throw new ApiError('member_not_found', `No member ${memberId.slice(0, 40)} in this tenant.`);
  return member;
}

export async function changeMemberRole(
  deps: Deps,
  actor: TeamActor,
  input: { tenantId: string; memberId: string; role: MemberRole },
) {
  const now = deps.clock.now();
  const row = await inTransaction(deps.db, async (trx) => {
    const member = await requireMember(trx, input.tenantId, input.memberId);
    requireTeamPower(actor, [member.role, input.role]);
    if (
      member.role === 'owner' &&
      input.role !== 'owner' &&
      (await countOwnersForUpdate(trx, input.tenantId)) <= 1
    )
      throw new ApiError('last_owner', 'This is the tenant’s only owner; make another member owner first.');
    const changed = await setMemberRole(trx, input.tenantId, input.memberId, input.role);
    if (!changed)
      throw new ApiError('member_not_found', `No member ${input.memberId.slice(0, 40)} in this tenant.`);
    await insertAuditEvent(
      trx,
      {
        tenantId: input.tenantId,
        actor: actorName(actor),
        action: 'member.role_changed',
        targetType: 'member',
        targetId: member.id,
        details: { before: member.role, after: input.role },
      },
      now,
    );
    return changed;
  });
  return { member: toMemberInfo(row) };
}

export async function removeMember(
  deps: Deps,
  actor: TeamActor,
  input: { tenantId: string; memberId: string },
) {
  const now = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    const member = await requireMember(trx, input.tenantId, input.memberId);
    const isSelf = actor.kind === 'member' && actor.id === member.id;
    if (!isSelf) requireTeamPower(actor, [member.role]);
    if (member.role === 'owner' && (await countOwnersForUpdate(trx, input.tenantId)) <= 1)
      throw new ApiError('last_owner', 'This is the tenant’s only owner; make another member owner first.');
    await markMemberRemoved(trx, input.tenantId, member.id, now);
    await revokeSessionsWithoutMembership(trx, member.email, now);
    await insertAuditEvent(
      trx,
      {
        tenantId: input.tenantId,
        actor: actorName(actor),
        action: 'member.removed',
        targetType: 'member',
        targetId: member.id,
        details: { email: maskEmail(member.email), role: member.role },
      },
      now,
    );
  });
  return { removed: true as const };
}
