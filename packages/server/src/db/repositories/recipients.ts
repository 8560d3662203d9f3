// Recipient consent state (per environment and normalised address).
import type { ContactStatus } from '@mailsvc/contract/api';
import { sql } from 'kysely';
import { newId } from '../../ids.js';
import type { BouncePolicy } from '../outcome-policy.js';
import type { Db } from '../schema.js';
import { queueRecipientEvent } from './webhook-queue.js';

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

/** Whether the address is unsubscribed from notifications in one environment (is_unsubscribed()). */
export async function isUnsubscribedNow(db: Db, environmentId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('recipients')
    .select(sql<boolean>`is_unsubscribed(unsubscribed_at, resubscribed_at)`.as('isUnsubscribed'))
    .where('environment_id', '=', environmentId)
    .where('email', '=', email)
    .executeTakeFirst();
  return row?.isUnsubscribed ?? false;
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
        .where(sql<boolean>`NOT is_unsubscribed(recipients.unsubscribed_at, recipients.resubscribed_at)`),
    )
    .returning('email')
    .execute();
  if (rows.length === 0) return false;
  await queueRecipientEvent(db, { ...q, type: 'recipient.unsubscribed' }, now);
  return true;
}

/**
 * A hard bounce of a message's recipient, in the message's environment: the lifetime count rises;
 * bounce_streak counts bounces each within the policy's window of the previous one; the cooldown
 * is the policy's hours doubled per earlier bounce of the streak; the streak's Nth bounce
 * (suppressAfterBounces) suppresses the address for suppressionDays. A cooldown or suppression
 * already running longer (an operator's `recipients suppress --days 365`) is never shortened.
 * Works with or without a delivery claim; each call is one bounce, so a caller must record a
 * message's bounce once (the worker's claim token does; a report intake must check the message's
 * status first). No-op for an unknown message.
 */
export async function recordHardBounce(
  db: Db,
  messageId: string,
  now: Date,
  policy: BouncePolicy,
): Promise<void> {
  const since = new Date(now.getTime() - policy.streakWindowDays * 86_400_000);
  const cooldown = sql`make_interval(hours => ${policy.cooldownHours})`;
  // The hold standing before this bounce (a cooldown or a suppression: one hard_bounce entry of
  // the suppressions list), read under a lock of the row in a statement of its own, so of two
  // bounces recorded at once the second sees the first's hold and sends no second event.
  const { rows: held } = await sql<{ until: Date | null }>`
    SELECT GREATEST(r.cooldown_until, r.suppressed_until) AS until
      FROM recipients r JOIN messages m ON r.environment_id = m.environment_id AND r.email = m.to_email
     WHERE m.id = ${messageId}
       FOR UPDATE OF r`.execute(db);
  const before = held[0]?.until ?? null;
  const { rows } = await sql<{
    tenant_id: string;
    environment_id: string;
    email: string;
    until: Date | null;
  }>`
    INSERT INTO recipients AS r (environment_id, tenant_id, email, hard_bounce_count, bounce_streak,
                                 last_hard_bounce_at, cooldown_until, suppressed_until, created_at, updated_at)
    SELECT environment_id, tenant_id, to_email, 1, 1, ${now}, ${now}::timestamptz + ${cooldown},
           CASE WHEN ${policy.suppressAfterBounces}::int <= 1
                THEN ${now}::timestamptz + make_interval(days => ${policy.suppressionDays}) END,
           ${now}, ${now}
    FROM messages WHERE id = ${messageId}
    ON CONFLICT (environment_id, email) DO UPDATE SET
      hard_bounce_count = r.hard_bounce_count + 1,
      bounce_streak = CASE WHEN r.last_hard_bounce_at > ${since} THEN r.bounce_streak + 1 ELSE 1 END,
      last_hard_bounce_at = ${now},
      cooldown_until = GREATEST(r.cooldown_until, ${now}::timestamptz + ${cooldown} *
        power(2, LEAST(CASE WHEN r.last_hard_bounce_at > ${since} THEN r.bounce_streak ELSE 0 END,
                       ${policy.maxDoublings}::int))),
      suppressed_until = CASE
        WHEN (CASE WHEN r.last_hard_bounce_at > ${since} THEN r.bounce_streak + 1 ELSE 1 END)
             >= ${policy.suppressAfterBounces}::int
        THEN GREATEST(r.suppressed_until, ${now}::timestamptz + make_interval(days => ${policy.suppressionDays}))
        ELSE r.suppressed_until END,
      updated_at = ${now}
    RETURNING r.tenant_id, r.environment_id, r.email,
              GREATEST(r.cooldown_until, r.suppressed_until) AS until`.execute(db);
  const r = rows[0];
  // A hold that begins with this bounce (not one that was standing and got longer): the same
  // "cooldown or suppression in force" that lifting it reports (recipients-admin.ts).
  if (r?.until && r.until > now && !(before && before > now))
    await queueRecipientEvent(
      db,
      {
        tenantId: r.tenant_id,
        environmentId: r.environment_id,
        email: r.email,
        type: 'recipient.suppressed',
        reason: 'hard_bounce',
        until: r.until,
      },
      now,
    );
}

/**
 * A complaint about a message, against its recipient in the message's environment: the message
 * becomes `complained`, complainedAt is set (the first time kept) and the count raised. Every
 * template is then refused (recipient_complained) until an operator clears it. Once per message:
 * a repeated report of the same message changes nothing (returns false). No-op for an unknown one.
 * Report intakes go through feedback.ts, which ranks statuses; this is the direct form.
 */
export async function recordComplaint(db: Db, messageId: string, now: Date): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    WITH reported AS (
      UPDATE messages SET status = 'complained', updated_at = ${now}
      WHERE id = ${messageId} AND status <> 'complained'
      RETURNING id, tenant_id
    )
    INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
    SELECT ${newId('evt', now.getTime())}, id, tenant_id, 'complained', '{}'::jsonb, ${now} FROM reported
    RETURNING message_id AS id`.execute(db);
  if (rows.length === 0) return false;
  await complainRecipient(db, messageId, now);
  return true;
}

/**
 * The recipient side of a complaint: complainedAt set (the first time kept), the count raised.
 * Each call is one complaint: callers record a message's complaint once.
 */
export async function complainRecipient(db: Db, messageId: string, now: Date): Promise<void> {
  const { rows } = await sql<{
    tenant_id: string;
    environment_id: string;
    email: string;
    complained_at: Date;
  }>`
    INSERT INTO recipients AS r (environment_id, tenant_id, email, complained_at, complaint_count,
                                 created_at, updated_at)
    SELECT environment_id, tenant_id, to_email, ${now}, 1, ${now}, ${now}
    FROM messages WHERE id = ${messageId}
    ON CONFLICT (environment_id, email) DO UPDATE SET
      complained_at = COALESCE(r.complained_at, ${now}),
      complaint_count = r.complaint_count + 1,
      updated_at = ${now}
    RETURNING r.tenant_id, r.environment_id, r.email, r.complained_at`.execute(db);
  const r = rows[0];
  // The first complaint (one standing keeps its time): every template is refused from now on.
  if (r && r.complained_at.getTime() === now.getTime())
    await queueRecipientEvent(
      db,
      {
        tenantId: r.tenant_id,
        environmentId: r.environment_id,
        email: r.email,
        type: 'recipient.suppressed',
        reason: 'complaint',
      },
      now,
    );
}

/** The whole recipients row of an address in one environment, or undefined when it has none. */
export async function findRecipient(db: Db, environmentId: string, email: string, now: Date) {
  return db
    .selectFrom('recipients as r')
    .select([
      'r.unsubscribed_at as unsubscribedAt',
      'r.resubscribed_at as resubscribedAt',
      'r.complained_at as complainedAt',
      'r.cooldown_until as cooldownUntil',
      'r.suppressed_until as suppressedUntil',
      'r.hard_bounce_count as hardBounceCount',
      'r.complaint_count as complaintCount',
      // the verdicts of db/functions/recipient_refusal.sql, the one home of the rule
      sql<ContactStatus>`contact_status(r.complained_at, r.unsubscribed_at, r.resubscribed_at,
        r.cooldown_until, r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, ${now})`.as(
        'status',
      ),
      sql<boolean>`is_unsubscribed(r.unsubscribed_at, r.resubscribed_at)`.as('isUnsubscribed'),
      sql<boolean>`recipient_refusal(r.complained_at, r.unsubscribed_at, r.resubscribed_at,
        r.cooldown_until, r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, 'notification', ${now}) IS NULL`.as(
        'canSendNotifications',
      ),
    ])
    .where('r.environment_id', '=', environmentId)
    .where('r.email', '=', email)
    .executeTakeFirst();
}

/**
 * The explicit opt-in (seed rule 3): clears a notification unsubscribe by setting resubscribed_at
 * later than unsubscribed_at. Touches nothing else — a complaint, a cooldown or a suppression stays.
 * Returns true when the address was unsubscribed (and now is not).
 */
export async function markResubscribed(
  db: Db,
  q: { environmentId: string; email: string },
  now: Date,
): Promise<boolean> {
  const rows = await db
    .updateTable('recipients')
    .set({ resubscribed_at: now, updated_at: now })
    .where('environment_id', '=', q.environmentId)
    .where('email', '=', q.email)
    .where(sql<boolean>`is_unsubscribed(unsubscribed_at, resubscribed_at)`)
    .returning(['email', 'tenant_id'])
    .execute();
  const r = rows[0];
  if (!r) return false;
  await queueRecipientEvent(db, { ...q, tenantId: r.tenant_id, type: 'recipient.resubscribed' }, now);
  return true;
}
