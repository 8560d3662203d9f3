// What only an operator may override about a recipient (DESIGN.md §5): a suppression, a cooldown
// with its bounce streak, a complaint. Each returns how many rows it changed (0 or 1), for the
// audit event the admin use-case writes with it (domain/admin/recipients.ts).
import type { Db } from '../schema.js';

export interface RecipientKey {
  environmentId: string;
  email: string;
}

/** Refuses every template to the recipient until `until`, creating its row if need be. */
export async function suppressRecipientUntil(
  db: Db,
  q: RecipientKey & { tenantId: string },
  until: Date,
  now: Date,
): Promise<number> {
  const rows = await db
    .insertInto('recipients')
    .values({
      environment_id: q.environmentId,
      tenant_id: q.tenantId,
      email: q.email,
      suppressed_until: until,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['environment_id', 'email']).doUpdateSet({ suppressed_until: until, updated_at: now }),
    )
    .returning('email')
    .execute();
  return rows.length;
}

/** Ends a cooldown and a suppression and restarts the bounce streak; the lifetime count stays. */
export async function liftRecipientSuppression(db: Db, q: RecipientKey, now: Date): Promise<number> {
  const rows = await db
    .updateTable('recipients')
    .set({ cooldown_until: null, suppressed_until: null, bounce_streak: 0, updated_at: now })
    .where('environment_id', '=', q.environmentId)
    .where('email', '=', q.email)
    .where((eb) =>
      eb.or([
        eb('cooldown_until', 'is not', null),
        eb('suppressed_until', 'is not', null),
        eb('bounce_streak', '>', 0),
      ]),
    )
    .returning('email')
    .execute();
  return rows.length;
}

/** Clears a complaint; the lifetime complaint count stays. */
export async function clearRecipientComplaint(db: Db, q: RecipientKey, now: Date): Promise<number> {
  const rows = await db
    .updateTable('recipients')
    .set({ complained_at: null, updated_at: now })
    .where('environment_id', '=', q.environmentId)
    .where('email', '=', q.email)
    .where('complained_at', 'is not', null)
    .returning('email')
    .execute();
  return rows.length;
}
