// API keys managed by a tenant's own full key (POST /v1/keys/create, list, revoke; DESIGN.md §12)
// and by the operator (mailsvc admin keys …): one write each, with its audit event. A key never
// creates a broader key than itself: only full keys reach these operations (their scope), and a
// full key may create a full or a send key.
import type {
  ApiKeyInfo,
  CreateKeyRequest,
  CreateKeyResponse,
  ListKeysResponse,
  RevokeKeyRequest,
  RevokeKeyResponse,
} from '@mailsvc/contract/api';
import {
  type ApiKeyRow,
  findEnvironmentKey,
  findKey,
  insertApiKey,
  listApiKeys,
  revokeLiveKey,
} from '../../db/repositories/api-keys.js';
import { auditedChange } from '../../db/repositories/audit.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { type AuthContext, actorOf, requireMemberMayCreateKey } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { generateApiKey } from './api-key.js';

export interface KeyGrant {
  scope: 'full' | 'send';
  /** send keys only; null: every category */
  templateCategories: readonly string[] | null;
  name: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toApiKeyInfo = (k: ApiKeyRow): ApiKeyInfo => ({
  keyId: k.id,
  hint: k.hint,
  name: k.name,
  scope: k.scope,
  templateCategories: (k.template_categories as ApiKeyInfo['templateCategories']) ?? null,
  status: k.revoked_at ? 'revoked' : 'active',
  createdAt: k.created_at.toISOString(),
  lastUsedAt: iso(k.last_used_at),
  revokedAt: iso(k.revoked_at),
});

/** A new key of an environment, with its audit event; the whole key (`token`) is returned once. */
export async function issueKey(
  db: Db,
  now: Date,
  owner: { tenantId: string; environmentId: string },
  grant: KeyGrant,
  actor: string,
): Promise<{ row: ApiKeyRow; token: string }> {
  if (grant.scope === 'full' && grant.templateCategories !== null)
    throw new ApiError('invalid_request', 'templateCategories limits a send key only.', [
      { path: '/templateCategories', message: 'is for scope send only' },
    ]);
  const key = generateApiKey(now.getTime());
  const row = await auditedChange(
    db,
    now,
    (trx) =>
      insertApiKey(trx, {
        id: key.id,
        tenant_id: owner.tenantId,
        environment_id: owner.environmentId,
        secret_sha256: key.secretSha256,
        hint: key.hint,
        scope: grant.scope,
        template_categories: grant.templateCategories === null ? null : [...grant.templateCategories],
        name: grant.name,
        created_at: now,
      }),
    (row) => ({
      tenantId: row.tenant_id,
      environmentId: row.environment_id,
      actor,
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: row.id,
      details: { scope: row.scope, templateCategories: row.template_categories, name: row.name },
    }),
  );
  return { row, token: key.token };
}

/**
 * Revokes a key. Revoking a revoked key changes nothing and records nothing, also when two
 * revocations race: only the one that revoked it writes the audit event.
 */
export async function withdrawKey(
  db: Db,
  now: Date,
  existing: Pick<ApiKeyRow, 'id' | 'revoked_at'>,
  actor: string,
): Promise<ApiKeyRow> {
  if (existing.revoked_at) return findKey(db, existing.id);
  const changed = await auditedChange(
    db,
    now,
    (trx) => revokeLiveKey(trx, existing.id, now),
    (row) =>
      row
        ? {
            tenantId: row.tenant_id,
            environmentId: row.environment_id,
            actor,
            action: 'api_key.revoked',
            targetType: 'api_key',
            targetId: row.id,
          }
        : null,
  );
  return changed ?? findKey(db, existing.id);
}

export async function createKey(
  deps: Deps,
  auth: AuthContext,
  input: CreateKeyRequest,
): Promise<Omit<CreateKeyResponse, 'ok'>> {
  requireMemberMayCreateKey(auth, input.scope);
  const { row, token } = await issueKey(
    deps.db,
    deps.clock.now(),
    { tenantId: auth.tenantId, environmentId: auth.environmentId },
    { scope: input.scope, templateCategories: input.templateCategories ?? null, name: input.name ?? null },
    actorOf(auth),
  );
  return { key: toApiKeyInfo(row), apiKey: token };
}

export async function listKeys(deps: Deps, auth: AuthContext): Promise<Omit<ListKeysResponse, 'ok'>> {
  return { keys: (await listApiKeys(deps.db, auth.environmentId)).map(toApiKeyInfo) };
}

export async function revokeKey(
  deps: Deps,
  auth: AuthContext,
  input: RevokeKeyRequest,
): Promise<Omit<RevokeKeyResponse, 'ok'>> {
  const existing = await findEnvironmentKey(deps.db, auth.environmentId, input.keyId);
  if (!existing)
    throw new ApiError('key_not_found', 'No API key with this id in the key’s environment.', [
      { path: '/keyId', message: 'no such key in this environment' },
    ]);
  const row = await withdrawKey(deps.db, deps.clock.now(), existing, actorOf(auth));
  // This process sees the revocation at once; other replicas within the key cache's TTL (≤ 5 s).
  deps.keyCache.clear();
  return { key: toApiKeyInfo(row) };
}
