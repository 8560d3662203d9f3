// What the relay event intakes authenticate against: per-environment Standard Webhooks secrets,
// the event ids seen within the replay window, and the SNS topics of SES notifications.
import type { Db } from '../schema.js';

/** Live secrets of an environment that still exists: the current one and any in its rotation grace. */
export async function listLiveIntakeSecrets(db: Db, environmentId: string, now: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('event_intake_secrets as s')
    .innerJoin('environments as e', 'e.id', 's.environment_id')
    .select('s.secret')
    .where('s.environment_id', '=', environmentId)
    .where('e.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)]))
    .orderBy('s.created_at', 'desc')
    .execute();
  return rows.map((r) => r.secret);
}

/**
 * A new secret for an environment; the ones it replaces stay valid until `graceUntil`, so a relay
 * can be switched over without losing events. Returns how many were put on notice.
 */
export async function insertIntakeSecret(
  db: Db,
  q: { id: string; environmentId: string; tenantId: string; secret: string; now: Date; graceUntil: Date },
): Promise<number> {
  const retired = await db
    .updateTable('event_intake_secrets')
    .set({ expires_at: q.graceUntil })
    .where('environment_id', '=', q.environmentId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', q.graceUntil)]))
    .returning('id')
    .execute();
  await db
    .insertInto('event_intake_secrets')
    .values({
      id: q.id,
      environment_id: q.environmentId,
      tenant_id: q.tenantId,
      secret: q.secret,
      created_at: q.now,
      expires_at: null,
    })
    .execute();
  return retired.length;
}

/** The intake secrets of an environment for operators: ids and dates, never the secret. */
export async function listIntakeSecrets(db: Db, environmentId: string) {
  return db
    .selectFrom('event_intake_secrets')
    .select(['id', 'created_at as createdAt', 'expires_at as expiresAt'])
    .where('environment_id', '=', environmentId)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function hasSeenEvent(db: Db, environmentId: string, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('event_intake_seen')
    .select('event_id')
    .where('environment_id', '=', environmentId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function markEventSeen(
  db: Db,
  environmentId: string,
  eventId: string,
  expiresAt: Date,
): Promise<void> {
  await db
    .insertInto('event_intake_seen')
    .values({ environment_id: environmentId, event_id: eventId, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['environment_id', 'event_id']).doNothing())
    .execute();
}

/** The environment an SNS topic's notifications belong to (a deleted one has none). */
export async function findSesTopic(db: Db, topicArn: string) {
  return db
    .selectFrom('ses_topics as t')
    .innerJoin('environments as e', 'e.id', 't.environment_id')
    .select(['t.environment_id as environmentId', 't.tenant_id as tenantId'])
    .where('t.topic_arn', '=', topicArn)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Registers a topic for an environment; false when it is registered already (to any). */
export async function insertSesTopic(
  db: Db,
  q: { topicArn: string; environmentId: string; tenantId: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .insertInto('ses_topics')
    .values({
      topic_arn: q.topicArn,
      environment_id: q.environmentId,
      tenant_id: q.tenantId,
      created_at: q.now,
    })
    .onConflict((oc) => oc.column('topic_arn').doNothing())
    .returning('topic_arn')
    .execute();
  return rows.length > 0;
}

export async function listSesTopics(db: Db, environmentId: string) {
  return db
    .selectFrom('ses_topics')
    .select(['topic_arn as topicArn', 'created_at as createdAt'])
    .where('environment_id', '=', environmentId)
    .orderBy('created_at')
    .execute();
}

/** Ends a secret now (a leaked one); returns its environment and tenant, or undefined when unknown. */
export async function expireIntakeSecret(db: Db, id: string, now: Date) {
  return db
    .updateTable('event_intake_secrets')
    .set((eb) => ({
      // Already ended: keep when it ended (revoking twice changes nothing).
      expires_at: eb.fn.coalesce(
        eb.case().when('expires_at', '<=', now).then(eb.ref('expires_at')).end(),
        eb.val(now),
      ),
    }))
    .where('id', '=', id)
    .returning(['environment_id as environmentId', 'tenant_id as tenantId', 'expires_at as expiresAt'])
    .executeTakeFirst();
}

/** Stops accepting a topic; returns its environment and tenant, or undefined when unregistered. */
export async function deleteSesTopic(db: Db, topicArn: string) {
  return db
    .deleteFrom('ses_topics')
    .where('topic_arn', '=', topicArn)
    .returning(['environment_id as environmentId', 'tenant_id as tenantId'])
    .executeTakeFirst();
}
