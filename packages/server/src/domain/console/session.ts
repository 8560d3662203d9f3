// A signed-in person's session: found by the cookie's token, touched at most once a minute, and the
// source of the short-lived API keys a console page calls /v1 with (DESIGN.md §14).
import { createHmac } from 'node:crypto';
import type { MemberRole } from '@mailsvc/contract/roles';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import {
  findLiveSession,
  listLiveSessions,
  listMembershipsOf,
  listTenantEnvironments,
  revokeSession,
  type SessionRow,
  touchSession,
} from '../../db/repositories/console-people.js';
import { loadOrCreateServiceSecret } from '../../db/repositories/secrets.js';
import { ApiError } from '../../errors.js';
import { SESSION_IDLE_MS } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { generateApiKey } from '../keys/api-key.js';
import { sessionDigest } from './sign-in.js';

/** A console page's API key lives this long; the page asks for a new one before it ends. */
export const CREDENTIAL_TTL_MS = 15 * 60_000;
const TOUCH_RESOLUTION_MS = 60_000;

export const sessionRequired = () =>
  new ApiError('session_required', 'Sign in to the console first (your session ended or was never opened).');

/** The live session of a cookie token, or 401 session_required. */
export async function requireSession(deps: Deps, token: string | undefined): Promise<SessionRow> {
  if (!token || token.length > 100) throw sessionRequired();
  const now = deps.clock.now();
  const session = await findLiveSession(deps.db, sessionDigest(token), now, SESSION_IDLE_MS);
  if (!session) throw sessionRequired();
  if (now.getTime() - session.last_seen_at.getTime() >= TOUCH_RESOLUTION_MS)
    await touchSession(deps.db, session.id, now);
  return session;
}

const csrfSecrets = new WeakMap<Deps, Promise<Buffer>>();

/** The session's CSRF token: an HMAC of its id under a service secret (nothing more to store). */
export async function csrfTokenOf(deps: Deps, sessionId: string): Promise<string> {
  let secret = csrfSecrets.get(deps);
  if (!secret) {
    secret = loadOrCreateServiceSecret(deps.db, 'console_csrf');
    csrfSecrets.set(deps, secret);
    secret.catch(() => csrfSecrets.delete(deps));
  }
  return createHmac('sha256', await secret)
    .update(sessionId)
    .digest('base64url');
}

export interface Membership {
  memberId: string;
  tenantId: string;
  tenantName: string;
  role: MemberRole;
  projectIds: string[] | null;
  projects: { id: string; name: string; environments: { id: string; name: string }[] }[];
}

/** The address's tenants, and in each the projects and environments its membership reaches. */
export async function membershipsOf(deps: Deps, email: string): Promise<Membership[]> {
  const rows = await listMembershipsOf(deps.db, email);
  const environments = await listTenantEnvironments(
    deps.db,
    rows.map((r) => r.tenant_id),
  );
  return rows.map((m) => {
    const projects = new Map<string, Membership['projects'][number]>();
    for (const e of environments) {
      if (e.tenant_id !== m.tenant_id) continue;
      if (m.project_ids !== null && !m.project_ids.includes(e.project_id)) continue;
      const project = projects.get(e.project_id) ?? {
        id: e.project_id,
        name: e.project_name,
        environments: [],
      };
      project.environments.push({ id: e.environment_id, name: e.environment_name });
      projects.set(e.project_id, project);
    }
    return {
      memberId: m.id,
      tenantId: m.tenant_id,
      tenantName: m.tenant_name,
      role: m.role,
      projectIds: m.project_ids,
      projects: [...projects.values()],
    };
  });
}

/** A membership of the session's address in this tenant, or 404 (another tenant's is not found). */
export async function requireMembership(
  deps: Deps,
  session: SessionRow,
  tenantId: string,
): Promise<Membership> {
  const membership = (await membershipsOf(deps, session.email)).find((m) => m.tenantId === tenantId);
  if (!membership) throw new ApiError('not_found', 'No tenant with this id among yours.');
  return membership;
}

/**
 * A 15-minute API key of an environment the session's member reaches. Its scope is full; what it
 * may call is the member's role, checked on every request (authenticate.ts), as is the session.
 */
export async function issueCredential(deps: Deps, session: SessionRow, environmentId: string) {
  const memberships = await membershipsOf(deps, session.email);
  for (const m of memberships) {
    for (const p of m.projects) {
      if (!p.environments.some((e) => e.id === environmentId)) continue;
      const now = deps.clock.now();
      const key = generateApiKey(now.getTime());
      const expiresAt = new Date(now.getTime() + CREDENTIAL_TTL_MS);
      await insertApiKey(deps.db, {
        id: key.id,
        tenant_id: m.tenantId,
        environment_id: environmentId,
        secret_sha256: key.secretSha256,
        hint: key.hint,
        scope: 'full',
        template_categories: null,
        name: 'console session',
        created_at: now,
        session_id: session.id,
        expires_at: expiresAt,
      });
      return {
        apiKey: key.token,
        expiresAt: expiresAt.toISOString(),
        role: m.role,
        tenantId: m.tenantId,
        projectId: p.id,
      };
    }
  }
  throw new ApiError('environment_not_found', 'No environment with this id among your teams’ projects.');
}

export async function listSessions(deps: Deps, session: SessionRow) {
  const rows = await listLiveSessions(deps.db, session.email, deps.clock.now(), SESSION_IDLE_MS);
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created_at.toISOString(),
    lastSeenAt: r.last_seen_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    userAgent: r.user_agent,
    current: r.id === session.id,
  }));
}

export async function endSession(deps: Deps, session: SessionRow, sessionId: string) {
  const ended = await revokeSession(deps.db, session.email, sessionId, deps.clock.now());
  if (!ended) throw new ApiError('not_found', 'No live session with this id among yours.');
  return { revoked: true as const };
}
