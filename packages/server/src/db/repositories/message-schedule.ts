// The app's controls over a message that has not gone yet (DESIGN.md §12): cancel a scheduled or
// queued message, move a scheduled one. Each is one statement whose WHERE re-checks the status
// under the row lock, so a worker's claim (claim_messages.sql: scheduled → queued → sending, FOR
// UPDATE SKIP LOCKED) and a cancel never both win: either the claim took the row first and the
// cancel changes nothing, or the cancel committed first and the claim no longer matches it.
import { sql } from 'kysely';
import { newId } from '../../ids.js';
import type { Db } from '../schema.js';

/** What may still be canceled: no worker has claimed it. */
export const CANCELABLE_STATUSES = ['scheduled', 'queued'] as const;

/**
 * Cancels the message if it is scheduled or queued: `canceled`, its template data deleted (it will
 * never be rendered), with a `canceled` event. True when it was canceled; false when it is not in
 * the environment or not cancelable (the caller reads which).
 */
export async function cancelPendingMessage(
  db: Db,
  environmentId: string,
  messageId: string,
  now: Date,
): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    WITH canceled AS (
      UPDATE messages SET status = 'canceled', data = NULL, updated_at = ${now}
       WHERE id = ${messageId} AND environment_id = ${environmentId}
         AND status IN (${sql.join([...CANCELABLE_STATUSES])})
      RETURNING id, tenant_id
    ), event AS (
      INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
      SELECT ${newId('evt', now.getTime())}, id, tenant_id, 'canceled', '{}'::jsonb, ${now} FROM canceled
    )
    SELECT id FROM canceled`.execute(db);
  return rows.length === 1;
}

/**
 * Moves a scheduled message to `scheduledAt` (its delivery window then ends at `expiresAt`), with a
 * `rescheduled` event. True when it was moved; false when it is not in the environment or no longer
 * scheduled.
 */
export async function rescheduleMessage(
  db: Db,
  environmentId: string,
  messageId: string,
  scheduledAt: Date,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    WITH moved AS (
      UPDATE messages
         SET scheduled_at = ${scheduledAt}, next_attempt_at = ${scheduledAt}, expires_at = ${expiresAt},
             updated_at = ${now}
       WHERE id = ${messageId} AND environment_id = ${environmentId} AND status = 'scheduled'
      RETURNING id, tenant_id
    ), event AS (
      INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
      SELECT ${newId('evt', now.getTime())}, id, tenant_id, 'rescheduled',
             jsonb_build_object('scheduledAt', ${scheduledAt.toISOString()}::text), ${now}
        FROM moved
    )
    SELECT id FROM moved`.execute(db);
  return rows.length === 1;
}
