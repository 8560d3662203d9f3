// API keys: the lookup authentication makes, and the admin use-cases' writes (never the secret
// back out: only its SHA-256 is stored).
import type { Insertable, Selectable } from 'kysely';
import type { ApiKeysTable, Db } from '../schema.js';

/** A key with everything authentication and access checks need, in one round trip. */
export async function findKeyScope(db: Db, keyId: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('environments as e', 'e.id', 'k.environment_id')
    .innerJoin('projects as p', 'p.id', 'e.project_id')
    .innerJoin('tenants as t', 't.id', 'p.tenant_id')
    .innerJoin('plans as pl', 'pl.id', 't.plan_id')
    .select([
      'k.id as keyId',
      'k.secret_sha256 as secretSha256',
      'k.revoked_at as revokedAt',
      'k.scope as scope',
      'k.template_categories as templateCategories',
      'k.session_id as sessionId',
      'k.expires_at as expiresAt',
      't.id as tenantId',
      't.deleted_at as tenantDeletedAt',
      't.plan_id as planId',
      't.access_status as accessStatus',
      't.trial_ends_at as trialEndsAt',
      'pl.rate_limit_per_second as rateLimitPerSecond',
      'pl.rate_limit_burst as rateLimitBurst',
      'p.id as projectId',
      'p.deleted_at as projectDeletedAt',
      'p.status as projectStatus',
      'p.name as projectName',
      'p.display_name as projectDisplayName',
      'p.support_email as projectSupportEmail',
      'p.from_email as projectFromEmail',
      'p.from_name as projectFromName',
      'p.reply_to as projectReplyTo',
      'e.id as environmentId',
      'e.deleted_at as environmentDeletedAt',
      'e.status as environmentStatus',
      'e.sending_status as sendingStatus',
      'e.name as environmentName',
      'e.from_email as environmentFromEmail',
      'e.from_name as environmentFromName',
      'e.reply_to as environmentReplyTo',
    ])
    .where('k.id', '=', keyId)
    .executeTakeFirst();
}

export type KeyScopeRow = NonNullable<Awaited<ReturnType<typeof findKeyScope>>>;

/** What an admin may see of a key: everything but the hash of its secret. */
const KEY_COLUMNS = [
  'id',
  'tenant_id',
  'environment_id',
  'hint',
  'scope',
  'template_categories',
  'name',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;
export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'secret_sha256' | 'session_id' | 'expires_at'>;

export function insertApiKey(db: Db, key: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(key).returning(KEY_COLUMNS).executeTakeFirstOrThrow();
}

/** When the key was revoked (null: it is live); undefined when there is no such key. */
export function findKeyRevocation(db: Db, id: string) {
  return db.selectFrom('api_keys').select(['revoked_at']).where('id', '=', id).executeTakeFirst();
}

/** Revokes a live key; undefined when it was revoked already (by a concurrent call, say). */
export function revokeLiveKey(db: Db, id: string, revokedAt: Date) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning(KEY_COLUMNS)
    .executeTakeFirst();
}

/** One key, whatever its environment (the admin's view). */
export function findKey(db: Db, id: string) {
  return db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
}

export function listApiKeys(db: Db, environmentId: string) {
  return db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('environment_id', '=', environmentId)
    .where('session_id', 'is', null)
    .orderBy('id')
    .execute();
}

/** One key of an environment (another environment's is undefined, as a missing one). */
export function findEnvironmentKey(db: Db, environmentId: string, id: string) {
  return db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('id', '=', id)
    .where('environment_id', '=', environmentId)
    .where('session_id', 'is', null)
    .executeTakeFirst();
}

/**
 * Records a use of the key at `now`, unless one within `resolutionMs` is recorded already (so
 * replicas writing the same minute do not each rewrite the row).
 */
export async function setKeyLastUsed(db: Db, id: string, now: Date, resolutionMs: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<=', new Date(now.getTime() - resolutionMs)),
      ]),
    )
    .execute();
}
