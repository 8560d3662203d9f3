// The console's people (migration 0021): members, sign-in codes, sessions. Every query names the
// tenant or the session it is about; addresses are stored lower-cased.
import { sql } from 'kysely';
import type { Db, MemberRole } from '../schema.js';

const MEMBER_COLUMNS = [
  'id',
  'tenant_id',
  'email',
  'name',
  'role',
  'project_ids',
  'status',
  'created_at',
  'last_sign_in_at',
] as const;

export function listTenantMembers(db: Db, tenantId: string) {
  return db
    .selectFrom('members')
    .select(MEMBER_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('removed_at', 'is', null)
    .orderBy('email')
    .execute();
}

export type MemberRow = Awaited<ReturnType<typeof listTenantMembers>>[number];

export function findTenantMember(db: Db, tenantId: string, memberId: string, forUpdate = false) {
  const q = db
    .selectFrom('members')
    .select(MEMBER_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', memberId)
    .where('removed_at', 'is', null);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

export function findMemberByEmail(db: Db, tenantId: string, email: string) {
  return db
    .selectFrom('members')
    .select(MEMBER_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('email', '=', email)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

export function insertMember(
  db: Db,
  m: {
    id: string;
    tenantId: string;
    email: string;
    name: string | null;
    role: MemberRole;
    projectIds: string[] | null;
    invitedBy: string;
  },
  now: Date,
) {
  return db
    .insertInto('members')
    .values({
      id: m.id,
      tenant_id: m.tenantId,
      email: m.email,
      name: m.name,
      role: m.role,
      project_ids: m.projectIds,
      invited_by: m.invitedBy,
      created_at: now,
    })
    .returning(MEMBER_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function setMemberRole(db: Db, tenantId: string, memberId: string, role: MemberRole) {
  return db
    .updateTable('members')
    .set({ role })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', memberId)
    .where('removed_at', 'is', null)
    .returning(MEMBER_COLUMNS)
    .executeTakeFirst();
}

/** An address without its +tag (jane+1@example.com → jane@example.com): the inbox it reaches. */
export const invitationMailbox = (email: string) => email.replace(/\+[^@]*@/, '@');
/** The same, in SQL: 0027_member_invitation_limits.sql indexes exactly this expression. */
const mailboxOf = sql<string>`regexp_replace(email, '\\+[^@]*@', '@')`;

/**
 * Invitations (members rows, removed ones included) since `day` of this mailbox in any tenant and
 * in this one, and of this tenant since `hour`: the invitation limits' counts.
 */
export async function countRecentInvitations(
  db: Db,
  email: string,
  tenantId: string,
  since: { day: Date; hour: Date },
) {
  const mailbox = invitationMailbox(email);
  const byMailbox = await db
    .selectFrom('members')
    .select((eb) => [
      eb.fn.countAll<number>().as('anywhere'),
      eb.fn.countAll<number>().filterWhere('tenant_id', '=', tenantId).as('here'),
    ])
    .where(mailboxOf, '=', mailbox)
    .where('created_at', '>', since.day)
    .executeTakeFirstOrThrow();
  const byTenant = await db
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>', since.hour)
    .executeTakeFirstOrThrow();
  return {
    mailboxAnywhere: Number(byMailbox.anywhere),
    mailboxHere: Number(byMailbox.here),
    tenantLastHour: Number(byTenant.n),
  };
}

export function markMemberRemoved(db: Db, tenantId: string, memberId: string, now: Date) {
  return db
    .updateTable('members')
    .set({ removed_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', memberId)
    .where('removed_at', 'is', null)
    .returning(['id', 'email', 'role'])
    .executeTakeFirst();
}

/** Owners left in the tenant (locked: two removals at once cannot both take the last but one). */
export async function countOwnersForUpdate(db: Db, tenantId: string): Promise<number> {
  const rows = await db
    .selectFrom('members')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'owner')
    .where('removed_at', 'is', null)
    .forUpdate()
    .execute();
  return rows.length;
}

/** Every live membership of an address, with its tenant's name (the console's tenant list). */
export function listMembershipsOf(db: Db, email: string) {
  return db
    .selectFrom('members as m')
    .innerJoin('tenants as t', 't.id', 'm.tenant_id')
    .select(['m.id', 'm.tenant_id', 't.name as tenant_name', 'm.role', 'm.project_ids', 'm.name'])
    .where('m.email', '=', email)
    .where('m.removed_at', 'is', null)
    .where('t.deleted_at', 'is', null)
    .orderBy('t.name')
    .execute();
}

export function markMembersSignedIn(db: Db, email: string, now: Date) {
  return db
    .updateTable('members')
    .set({ status: 'active', last_sign_in_at: now })
    .where('email', '=', email)
    .where('removed_at', 'is', null)
    .execute();
}

/** The live projects and environments of tenants (the environment picker). */
export function listTenantEnvironments(db: Db, tenantIds: readonly string[]) {
  if (tenantIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('projects as p')
    .innerJoin('environments as e', 'e.project_id', 'p.id')
    .select([
      'p.tenant_id',
      'p.id as project_id',
      'p.name as project_name',
      'e.id as environment_id',
      'e.name as environment_name',
    ])
    .where('p.tenant_id', 'in', tenantIds)
    .where('p.deleted_at', 'is', null)
    .where('e.deleted_at', 'is', null)
    .orderBy('p.name')
    .orderBy('e.name')
    .execute();
}

// --- sign-in codes

export function insertSignInCode(
  db: Db,
  c: { id: string; email: string; codeSha256: Buffer; client: string; expiresAt: Date },
  now: Date,
) {
  return db
    .insertInto('console_sign_in_codes')
    .values({
      id: c.id,
      email: c.email,
      code_sha256: c.codeSha256,
      client: c.client,
      created_at: now,
      expires_at: c.expiresAt,
    })
    .execute();
}

/** Codes asked for an address and by a client since `since` (the per-address and per-client limits). */
export async function countRecentCodes(db: Db, email: string, client: string, since: Date) {
  const row = await db
    .selectFrom('console_sign_in_codes')
    .select((eb) => [
      eb.fn.count<number>('id').filterWhere('email', '=', email).as('byEmail'),
      eb.fn.count<number>('id').filterWhere('client', '=', client).as('byClient'),
    ])
    .where('created_at', '>', since)
    .where((eb) => eb.or([eb('email', '=', email), eb('client', '=', client)]))
    .executeTakeFirstOrThrow();
  return { byEmail: Number(row.byEmail), byClient: Number(row.byClient) };
}

/** A new code replaces the address's earlier ones: at most one is live (5 tries in all, not 5 each). */
export function supersedeCodes(db: Db, email: string, now: Date) {
  return db
    .updateTable('console_sign_in_codes')
    .set({ expires_at: now })
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

/** Wrong codes tried for an address since `since` (a right one counts one try and is used). */
export async function countFailedTries(db: Db, email: string, since: Date): Promise<number> {
  const row = await db
    .selectFrom('console_sign_in_codes')
    .select(
      sql<number>`coalesce(sum(attempts - CASE WHEN used_at IS NULL THEN 0 ELSE 1 END), 0)::int`.as('n'),
    )
    .where('email', '=', email)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The address's live code, else its newest, locked: its attempts are counted one at a time. */
export function findLatestCodeForUpdate(db: Db, email: string, now: Date) {
  return db
    .selectFrom('console_sign_in_codes')
    .selectAll()
    .where('email', '=', email)
    .orderBy(sql`used_at IS NULL AND expires_at > ${now}`, 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export function countCodeAttempt(db: Db, id: string, usedAt: Date | null) {
  return db
    .updateTable('console_sign_in_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), used_at: usedAt }))
    .where('id', '=', id)
    .execute();
}

// --- sessions

export function insertSession(
  db: Db,
  s: {
    id: string;
    tokenSha256: Buffer;
    email: string;
    expiresAt: Date;
    userAgent: string | null;
    client: string;
  },
  now: Date,
) {
  return db
    .insertInto('console_sessions')
    .values({
      id: s.id,
      token_sha256: s.tokenSha256,
      email: s.email,
      created_at: now,
      last_seen_at: now,
      expires_at: s.expiresAt,
      user_agent: s.userAgent,
      client: s.client,
    })
    .execute();
}

/** A live session by its token's hash: not revoked, before its absolute end and its idle end. */
export function findLiveSession(db: Db, tokenSha256: Buffer, now: Date, idleMs: number) {
  return db
    .selectFrom('console_sessions')
    .select(['id', 'email', 'created_at', 'last_seen_at', 'expires_at'])
    .where('token_sha256', '=', tokenSha256)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', new Date(now.getTime() - idleMs))
    .executeTakeFirst();
}

export type SessionRow = NonNullable<Awaited<ReturnType<typeof findLiveSession>>>;

export function touchSession(db: Db, id: string, now: Date) {
  return db.updateTable('console_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export function listLiveSessions(db: Db, email: string, now: Date, idleMs: number) {
  return db
    .selectFrom('console_sessions')
    .select(['id', 'created_at', 'last_seen_at', 'expires_at', 'user_agent'])
    .where('email', '=', email)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', new Date(now.getTime() - idleMs))
    .orderBy('created_at', 'desc')
    .execute();
}

/** Ends one session of an address (another address's session id is not found: undefined). */
export function revokeSession(db: Db, email: string, id: string, now: Date) {
  return db
    .updateTable('console_sessions')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('email', '=', email)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
}

/** Ends every session of an address that has no live membership left (after a removal). */
export function revokeSessionsWithoutMembership(db: Db, email: string, now: Date) {
  return db
    .updateTable('console_sessions')
    .set({ revoked_at: now })
    .where('email', '=', email)
    .where('revoked_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('members')
            .select(sql.lit(1).as('one'))
            .where('members.email', '=', email)
            .where('members.removed_at', 'is', null),
        ),
      ),
    )
    .execute();
}

/**
 * The member behind a console credential, for authentication: the session alive and the address a
 * live member of the credential's tenant. Read on every request (never cached): a removed member,
 * a revoked session, a changed role take effect at once.
 */
export function findSessionMember(db: Db, sessionId: string, tenantId: string, now: Date, idleMs: number) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('members as m', (j) =>
      j.onRef('m.email', '=', 's.email').on('m.tenant_id', '=', tenantId).on('m.removed_at', 'is', null),
    )
    .select(['m.id', 'm.email', 'm.role', 'm.project_ids'])
    .where('s.id', '=', sessionId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', new Date(now.getTime() - idleMs))
    .executeTakeFirst();
}
