// What only an operator may override about a recipient (DESIGN.md §5): a suppression, a cooldown
// with its bounce streak, a complaint (an app may lift the first two itself: POST
// /v1/suppressions/remove). Each returns how many rows it changed (0 or 1), for the
// audit event the admin use-case writes with it (domain/admin/recipients.ts).
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { addManualSuppression, clearManualSuppression } from './suppressions.js';
import { queueRecipientEvent } from './webhook-queue.js';

export interface RecipientKey {
  environmentId: string;
  email: string;
}

/**
 * Refuses every template to the recipient until `until`, creating its row if need be: a manual
 * suppression (db/repositories/suppressions.ts), as POST /v1/suppressions/add makes one, except
 * that one standing is never shortened and keeps its note.
 */
export async function suppressRecipientUntil(
  db: Db,
  q: RecipientKey & { tenantId: string },
  until: Date,
  now: Date,
): Promise<number> {
  await addManualSuppression(db, { ...q, until, note: null, extendOnly: true }, now);
  return 1;
}

/**
 * Ends a hard-bounce cooldown and suppression and restarts the bounce streak; the lifetime count
 * stays. A cooldown or suppression that was holding the address back is reported
 * (recipient.unsuppressed, reason hard_bounce).
 */
export async function liftBounceHold(db: Db, q: RecipientKey, now: Date): Promise<number> {
  // `old`: the row as the statement began, for what was standing
  const { rows } = await sql<{ tenant_id: string; was_holding: boolean }>`
    UPDATE recipients r SET cooldown_until = NULL, suppressed_until = NULL, bounce_streak = 0, updated_at = ${now}
      FROM recipients old
     WHERE old.environment_id = r.environment_id AND old.email = r.email
       AND r.environment_id = ${q.environmentId} AND r.email = ${q.email}
       AND (r.cooldown_until IS NOT NULL OR r.suppressed_until IS NOT NULL OR r.bounce_streak > 0)
    RETURNING r.tenant_id,
              (old.cooldown_until > ${now} OR old.suppressed_until > ${now}) IS TRUE AS was_holding`.execute(
    db,
  );
  for (const r of rows)
    if (r.was_holding)
      await queueRecipientEvent(
        db,
        { ...q, tenantId: r.tenant_id, type: 'recipient.unsuppressed', reason: 'hard_bounce' },
        now,
      );
  return rows.length;
}

/** Ends every suppression an operator may lift: a bounce's (liftBounceHold) and a manual one. */
export async function liftRecipientSuppression(db: Db, q: RecipientKey, now: Date): Promise<number> {
  const bounce = await liftBounceHold(db, q, now);
  const manual = await clearManualSuppression(db, q, now);
  return Math.max(bounce, manual);
}

/** Clears a complaint; the lifetime complaint count stays. */
export async function clearRecipientComplaint(db: Db, q: RecipientKey, now: Date): Promise<number> {
  const rows = await db
    .updateTable('recipients')
    .set({ complained_at: null, updated_at: now })
    .where('environment_id', '=', q.environmentId)
    .where('email', '=', q.email)
    .where('complained_at', 'is not', null)
    .returning(['email', 'tenant_id'])
    .execute();
  for (const r of rows)
    await queueRecipientEvent(
      db,
      { ...q, tenantId: r.tenant_id, type: 'recipient.unsuppressed', reason: 'complaint' },
      now,
    );
  return rows.length;
}
