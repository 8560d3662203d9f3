// Recipient consent state (per environment and normalised address).
import { sql } from 'kysely';
import type { Db } from '../schema.js';

/** The environment and its project's name, or undefined when it (or its project or tenant) is deleted. */
export async function findEnvironmentForConsent(db: Db, environmentId: string) {
  return db
    .selectFrom('environments as e')
    .innerJoin('projects as p', 'p.id', 'e.project_id')
    .innerJoin('tenants as t', 't.id', 'e.tenant_id')
    .select([
      'e.id as environmentId',
      'e.tenant_id as tenantId',
      'p.name as projectName',
      'p.display_name as projectDisplayName',
    ])
    .where('e.id', '=', environmentId)
    .where('e.deleted_at', 'is', null)
    .where('p.deleted_at', 'is', null)
    .where('t.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The recipient's consent state in one environment; undefined when it has no row yet. */
export async function findSubscription(db: Db, environmentId: string, email: string) {
  return db
    .selectFrom('recipients')
    .select(['unsubscribed_at as unsubscribedAt', 'resubscribed_at as resubscribedAt'])
    .where('environment_id', '=', environmentId)
    .where('email', '=', email)
    .executeTakeFirst();
}

/**
 * One statement: creates the row unsubscribed, or marks an existing row unsubscribed unless it
 * already is (then nothing is written and the first time is kept). Returns true when the state
 * changed.
 */
export async function markUnsubscribed(
  db: Db,
  q: { environmentId: string; tenantId: string; email: string },
  now: Date,
): Promise<boolean> {
  const rows = await db
    .insertInto('recipients')
    .values({
      environment_id: q.environmentId,
      tenant_id: q.tenantId,
      email: q.email,
      unsubscribed_at: now,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['environment_id', 'email'])
        .doUpdateSet({ unsubscribed_at: now, updated_at: now })
        .where(
          sql<boolean>`NOT (recipients.unsubscribed_at IS NOT NULL AND (recipients.resubscribed_at IS NULL OR recipients.resubscribed_at < recipients.unsubscribed_at))`,
        ),
    )
    .returning('email')
    .execute();
  return rows.length > 0;
}
