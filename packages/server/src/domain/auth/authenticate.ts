import type { KeyScope } from '@mailsvc/contract/api';
import { type MemberRole, roleAllows, roleAtLeast } from '@mailsvc/contract/roles';
import type { Clock } from '../../clock.js';
import { findKeyScope, type KeyScopeRow } from '../../db/repositories/api-keys.js';
import { findSessionMember } from '../../db/repositories/console-people.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { MAX_KEY_LENGTH, parseApiKey, secretMatches } from '../keys/api-key.js';

export type AccessStatus = 'active' | 'trialing' | 'trial_expired' | 'suspended';

/** Who is calling: one API key of one environment of one project of one tenant. */
export interface AuthContext {
  keyId: string;
  /** What the key may call (DESIGN.md §12): full, or send (send, the batch, quota). */
  scope: KeyScope;
  /** A send key limited to these template categories; null: every category. */
  templateCategories: readonly string[] | null;
  tenantId: string;
  projectId: string;
  environmentId: string;
  planId: string;
  accessStatus: AccessStatus;
  projectStatus: 'active' | 'inactive';
  environmentStatus: 'active' | 'inactive';
  sendingStatus: 'active' | 'paused' | 'blocked';
  project: { name: string; displayName: string | null; supportEmail: string | null; sender: SenderSettings };
  environment: { name: string; sender: SenderSettings };
  /** The plan's per-key request rate (domain/auth/rate-limit.ts). */
  rateLimit: { perSecond: number; burst: number };
  /** A console page's credential (DESIGN.md §14): the signed-in member whose role limits it. */
  member: { id: string; email: string; role: MemberRole; projectIds: readonly string[] | null } | null;
}

/** Who an audit event names: the member behind a console credential, else the key. */
export const actorOf = (auth: AuthContext) =>
  auth.member ? `member:${auth.member.id}` : `key:${auth.keyId}`;

/** A console session ends after 12 hours without a request (DESIGN.md §14). */
export const SESSION_IDLE_MS = 12 * 3600_000;

export interface SenderSettings {
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
}

/**
 * Per-process cache of key rows. Its TTL (≤ 5 s) bounds how long a revocation, a deletion or a
 * status change takes to be seen by every replica; nothing else invalidates it across processes.
 */
export class KeyLookupCache {
  private readonly rows = new Map<string, { row: KeyScopeRow; expiresAt: number }>();
  /** Key ids that do not exist: a flood of guessed ids must not cost a query each. */
  private readonly missing = new Map<string, number>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    /** Ids are random: one that did not exist cannot come into being except by a new key. */
    private readonly missingTtlMs = 60_000,
  ) {}

  isKnownMissing(keyId: string, now: number): boolean {
    const until = this.missing.get(keyId);
    if (until === undefined) return false;
    if (until > now) return true;
    this.missing.delete(keyId);
    return false;
  }

  setMissing(keyId: string, now: number): void {
    if (this.missing.size >= this.maxEntries) this.missing.clear();
    this.missing.set(keyId, now + this.missingTtlMs);
  }

  get(keyId: string, now: number): KeyScopeRow | undefined {
    const hit = this.rows.get(keyId);
    if (!hit) return undefined;
    if (hit.expiresAt <= now) {
      this.rows.delete(keyId);
      return undefined;
    }
    return hit.row;
  }

  set(keyId: string, row: KeyScopeRow, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.rows.size >= this.maxEntries) this.rows.clear();
    this.rows.set(keyId, { row, expiresAt: now + this.ttlMs });
  }

  /** After an admin change in this process: no stale status here, whatever was changed. */
  clear(): void {
    this.rows.clear();
    this.missing.clear();
  }
}

export interface AuthDeps {
  db: Db;
  clock: Clock;
  keyCache: KeyLookupCache;
}

const BEARER = /^Bearer[ \t]+(.*)$/i;

/** DESIGN.md §2 order: missing → invalid → revoked → tenant → project → environment. */
export async function authenticate(deps: AuthDeps, authorization: string | undefined): Promise<AuthContext> {
  const match = authorization === undefined ? null : BEARER.exec(authorization.trim());
  const token = match?.[1]?.trim() ?? '';
  if (token === '') {
    throw new ApiError('missing_api_key', 'Send your API key as `Authorization: Bearer <API key>`.');
  }
  const parsed = token.length <= MAX_KEY_LENGTH ? parseApiKey(token) : null;
  if (!parsed) throw new ApiError('invalid_api_key', 'The API key is not valid.');
  const now = deps.clock.now();
  let row = deps.keyCache.get(parsed.id, now.getTime());
  if (!row && !deps.keyCache.isKnownMissing(parsed.id, now.getTime())) {
    row = await findKeyScope(deps.db, parsed.id);
    // A console credential is never cached: its session and member are read on every request.
    if (!row) deps.keyCache.setMissing(parsed.id, now.getTime());
    else if (!row.sessionId) deps.keyCache.set(parsed.id, row, now.getTime());
  }
  if (!row || !secretMatches(parsed.secret, row.secretSha256)) {
    throw new ApiError('invalid_api_key', 'The API key is not valid.');
  }
  if (row.revokedAt) throw new ApiError('api_key_revoked', 'This API key was revoked.');
  if (row.tenantDeletedAt) throw new ApiError('tenant_not_found', "This API key's tenant no longer exists.");
  if (row.projectDeletedAt)
    throw new ApiError('project_not_found', "This API key's project no longer exists.");
  if (row.environmentDeletedAt) {
    throw new ApiError('environment_not_found', "This API key's environment no longer exists.");
  }
  const auth = toAuthContext(row, now);
  if (row.sessionId) auth.member = await consoleMember(deps, row, now);
  return auth;
}

/** The member a console credential acts for; its session, membership and projects still live. */
async function consoleMember(deps: AuthDeps, row: KeyScopeRow, now: Date): Promise<AuthContext['member']> {
  const ended = () =>
    new ApiError(
      'invalid_api_key',
      'This console credential has expired or its session ended; sign in again.',
    );
  if (!row.expiresAt || row.expiresAt.getTime() <= now.getTime()) throw ended();
  const member = await findSessionMember(deps.db, row.sessionId!, row.tenantId, now, SESSION_IDLE_MS);
  if (!member) throw ended();
  if (member.project_ids !== null && !member.project_ids.includes(row.projectId)) {
    throw new ApiError('insufficient_role', 'You are no longer a member of this project.');
  }
  return { id: member.id, email: member.email, role: member.role, projectIds: member.project_ids };
}

/**
 * What a member's role cannot reach even where the operation allows it: a key broader than a send
 * key (it would outlive the member and pass no role check) below admin, and a tenant-wide record
 * (a tenant-scope sending domain) for a member limited to some projects.
 */
export function requireMemberMayCreateKey(auth: AuthContext, scope: KeyScope): void {
  if (auth.member && scope === 'full' && !roleAtLeast(auth.member.role, 'admin'))
    throw new ApiError(
      'insufficient_role',
      `Your role (${auth.member.role}) may create send keys only; a full key is an admin's or owner's to create.`,
    );
}

export function requireTenantWide(auth: AuthContext, scope: string): void {
  if (auth.member && auth.member.projectIds !== null && scope === 'tenant')
    throw new ApiError(
      'insufficient_role',
      'You are a member of some projects only: tenant-wide sending domains are changed by members of every project.',
    );
}

/** A console credential calls what its member's role allows (@mailsvc/contract/roles). */
export function requireRole(auth: AuthContext, operationId: string | undefined): void {
  if (!auth.member || (operationId !== undefined && roleAllows(auth.member.role, operationId))) return;
  throw new ApiError(
    'insufficient_role',
    `Your role in this tenant (${auth.member.role}) does not allow this; ask an owner or admin.`,
  );
}

export function effectiveAccessStatus(
  status: 'active' | 'trialing' | 'suspended',
  trialEndsAt: Date | null,
  now: Date,
): AccessStatus {
  if (status === 'trialing' && trialEndsAt && trialEndsAt.getTime() <= now.getTime()) return 'trial_expired';
  return status;
}

/** The caller of a key found by id (authentication already done, or not needed: the dev gallery). */
export function toAuthContext(row: KeyScopeRow, now: Date): AuthContext {
  return {
    keyId: row.keyId,
    scope: row.scope,
    templateCategories: row.templateCategories,
    tenantId: row.tenantId,
    projectId: row.projectId,
    environmentId: row.environmentId,
    planId: row.planId,
    accessStatus: effectiveAccessStatus(row.accessStatus, row.trialEndsAt, now),
    projectStatus: row.projectStatus,
    environmentStatus: row.environmentStatus,
    sendingStatus: row.sendingStatus,
    rateLimit: { perSecond: row.rateLimitPerSecond, burst: row.rateLimitBurst },
    member: null,
    project: {
      name: row.projectName,
      displayName: row.projectDisplayName,
      supportEmail: row.projectSupportEmail,
      sender: { fromEmail: row.projectFromEmail, fromName: row.projectFromName, replyTo: row.projectReplyTo },
    },
    environment: {
      name: row.environmentName,
      sender: {
        fromEmail: row.environmentFromEmail,
        fromName: row.environmentFromName,
        replyTo: row.environmentReplyTo,
      },
    },
  };
}

/** The operation's scopes (DESIGN.md §12): a key outside them gets 403 insufficient_scope. */
export function requireScope(auth: AuthContext, scopes: readonly KeyScope[]): void {
  if (!scopes.includes(auth.scope)) {
    throw new ApiError(
      'insufficient_scope',
      `This API key's scope (${auth.scope}) does not allow this operation; it needs a key of scope ${scopes.join(' or ')}.`,
    );
  }
}

/** A send key limited to template categories sends only those (checked once the template is known). */
export function requireTemplateCategory(auth: AuthContext, category: string, templateId: string): void {
  if (auth.templateCategories !== null && !auth.templateCategories.includes(category)) {
    throw new ApiError(
      'insufficient_scope',
      `This API key may send ${auth.templateCategories.join(' and ')} templates only; ${templateId} is a ${category} template.`,
    );
  }
}

export type AccessCheck = 'trial' | 'project' | 'environment';

/** The per-endpoint checks that follow authentication (seed §5, §7), in this order. */
export function requireAccess(auth: AuthContext, checks: readonly AccessCheck[]): void {
  if (checks.includes('trial') && auth.accessStatus === 'trial_expired') {
    throw new ApiError('trial_expired', "The tenant's trial has ended; choose a plan to continue.");
  }
  if (checks.includes('project') && auth.projectStatus !== 'active') {
    throw new ApiError('project_inactive', "This API key's project is inactive.");
  }
  if (checks.includes('environment') && auth.environmentStatus !== 'active') {
    throw new ApiError('environment_inactive', "This API key's environment is inactive.");
  }
}
