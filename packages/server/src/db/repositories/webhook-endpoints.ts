// An environment's webhook endpoints (DESIGN.md §11). Every query names the environment: an
// endpoint of another environment is not found. The one exception, findEndpointSecretsByUrl, is
// for the dev inbox of `mailsvc start`, which shows every environment's mail and events.
import { type Selectable, sql } from 'kysely';
import type { WebhookEndpointsTable } from '../generated/schema.js';
import type { Db } from '../schema.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

export interface EndpointChange {
  url?: string;
  description?: string | null;
  eventTypes?: string[] | null;
  enabled?: boolean;
  rateLimitPerSecond?: number | null;
}

export function listEndpoints(db: Db, environmentId: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * An endpoint of the environment. `lock`: `update` to delete it; `no key update` to change it, which
 * the webhook runner's records (their attempts' foreign-key checks take KEY SHARE) never wait for.
 */
export async function findEndpoint(
  db: Db,
  environmentId: string,
  id: string,
  lock?: 'update' | 'no key update',
): Promise<WebhookEndpointRow | undefined> {
  let q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id);
  if (lock === 'update') q = q.forUpdate();
  if (lock === 'no key update') q = q.forNoKeyUpdate();
  return q.executeTakeFirst();
}

/** Endpoints of the environment, counted under a lock of the environment's row (the limit of 20). */
export async function countEndpointsLocked(db: Db, environmentId: string): Promise<number> {
  await db.selectFrom('environments').select('id').where('id', '=', environmentId).forUpdate().execute();
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('environment_id', '=', environmentId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(
  db: Db,
  e: {
    id: string;
    tenantId: string;
    environmentId: string;
    url: string;
    description: string | null;
    eventTypes: string[] | null;
    enabled: boolean;
    secret: string;
    rateLimitPerSecond: number | null;
  },
  now: Date,
): Promise<WebhookEndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      id: e.id,
      tenant_id: e.tenantId,
      environment_id: e.environmentId,
      url: e.url,
      description: e.description,
      event_types: e.eventTypes,
      enabled: e.enabled,
      disabled_reason: e.enabled ? null : 'manual',
      secret: e.secret,
      rate_limit_per_second: e.rateLimitPerSecond,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Applies a change; enabling clears the disabled reason and the failure streak. */
export async function updateEndpoint(
  db: Db,
  environmentId: string,
  id: string,
  c: EndpointChange,
  now: Date,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      ...(c.url !== undefined && { url: c.url }),
      ...(c.description !== undefined && { description: c.description }),
      ...(c.eventTypes !== undefined && { event_types: c.eventTypes }),
      // a new cap starts with a full second's worth
      ...(c.rateLimitPerSecond !== undefined && {
        rate_limit_per_second: c.rateLimitPerSecond,
        rate_tokens: 0,
        rate_refilled_at: null,
      }),
      // enabling a disabled endpoint restarts its failure streak; one already enabled keeps it
      ...(c.enabled === true && {
        enabled: true,
        disabled_reason: null,
        disabled_at: null,
        failing_since: sql<Date | null>`CASE WHEN enabled THEN failing_since END`,
      }),
      // disabling keeps a disabled one's reason (a 410 stays "gone")
      ...(c.enabled === false && {
        enabled: false,
        disabled_reason: sql<string>`CASE WHEN enabled THEN 'manual' ELSE disabled_reason END`,
        disabled_at: sql<Date | null>`CASE WHEN enabled THEN ${now}::timestamptz ELSE disabled_at END`,
      }),
      updated_at: now,
    })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Db, environmentId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('webhook_endpoints')
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** A new secret; the one it replaces keeps signing until `graceUntil`. */
export async function rotateEndpointSecret(
  db: Db,
  environmentId: string,
  id: string,
  secret: string,
  graceUntil: Date,
  now: Date,
): Promise<boolean> {
  const r = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_until: graceUntil,
      secret,
      updated_at: now,
    }))
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export type EndpointSecrets = Pick<
  WebhookEndpointRow,
  'id' | 'secret' | 'previous_secret' | 'previous_secret_until'
>;

/**
 * The endpoints of every environment whose URL is exactly `url`, with their secrets: the dev
 * inbox's webhook catcher verifies what it received with them (dev/inbox/webhook-catcher.ts).
 */
export function findEndpointSecretsByUrl(db: Db, url: string): Promise<EndpointSecrets[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret', 'previous_secret', 'previous_secret_until'])
    .where('url', '=', url)
    .orderBy('id')
    .execute();
}
