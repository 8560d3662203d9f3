// A recipient row seen as suppression entries (DESIGN.md §12): one per address and reason that
// holds it back now — hard_bounce (a running cooldown or bounce suppression, since the last hard
// bounce), complaint, unsubscribed (not cleared by a later resubscribe), manual (the app's, not past
// its end). What holds is the eligibility rule's parts (db/functions/recipient_refusal.sql); the
// list walks one index per reason (0016_suppressions.sql) and merges them, newest first.
import type { SuppressionReason } from '@mailsvc/contract/api';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../schema.js';
import { queueRecipientEvent } from './webhook-queue.js';

export interface SuppressionRow {
  email: string;
  reason: SuppressionReason;
  created_at: Date;
  until: Date | null;
  note: string | null;
}

/** The order of the list and its cursor: newest first, then by address, then by reason. */
export interface SuppressionPosition {
  at: Date;
  email: string;
  reason: SuppressionReason;
}

/** Each reason's entries of one environment: the row's columns that name it, and when it holds. */
function entriesOf(
  reason: SuppressionReason,
  now: Date,
): { select: RawBuilder<unknown>; holds: RawBuilder<unknown> } {
  switch (reason) {
    case 'complaint':
      return {
        select: sql`r.complained_at AS created_at, NULL::timestamptz AS until, NULL::text AS note`,
        holds: sql`r.complained_at IS NOT NULL`,
      };
    case 'unsubscribed':
      return {
        select: sql`r.unsubscribed_at AS created_at, NULL::timestamptz AS until, NULL::text AS note`,
        holds: sql`r.unsubscribed_at IS NOT NULL AND is_unsubscribed(r.unsubscribed_at, r.resubscribed_at)`,
      };
    case 'hard_bounce':
      return {
        select: sql`r.last_hard_bounce_at AS created_at,
                    GREATEST(r.cooldown_until, r.suppressed_until) AS until, NULL::text AS note`,
        holds: sql`r.last_hard_bounce_at IS NOT NULL
                   AND (r.cooldown_until > ${now} OR r.suppressed_until > ${now})`,
      };
    case 'manual':
      return {
        select: sql`r.manual_suppressed_at AS created_at, r.manual_suppressed_until AS until,
                    r.manual_suppression_note AS note`,
        holds: sql`r.manual_suppressed_at IS NOT NULL
                   AND is_manually_suppressed(r.manual_suppressed_at, r.manual_suppressed_until, ${now})`,
      };
  }
}

const startOf: Record<SuppressionReason, RawBuilder<unknown>> = {
  complaint: sql.ref('r.complained_at'),
  unsubscribed: sql.ref('r.unsubscribed_at'),
  hard_bounce: sql.ref('r.last_hard_bounce_at'),
  manual: sql.ref('r.manual_suppressed_at'),
};

export interface SuppressionQuery {
  environmentId: string;
  reasons: readonly SuppressionReason[];
  /** one address only (normalised) */
  email?: string;
  /** begun at or after */
  from?: Date;
  /** begun before */
  before?: Date;
  /** after this entry in the list's order (the cursor) */
  after?: SuppressionPosition;
  limit: number;
  now: Date;
}

/** A page of entries, newest first: each reason's own newest `limit`, merged. */
export async function listSuppressionRows(db: Db, q: SuppressionQuery): Promise<SuppressionRow[]> {
  if (q.reasons.length === 0) return [];
  const parts = q.reasons.map((reason) => {
    const { select, holds } = entriesOf(reason, q.now);
    const start = startOf[reason];
    const conds: RawBuilder<unknown>[] = [sql`r.environment_id = ${q.environmentId}`, holds];
    if (q.email !== undefined) conds.push(sql`r.email = ${q.email}`);
    if (q.from) conds.push(sql`${start} >= ${q.from}`);
    if (q.before) conds.push(sql`${start} < ${q.before}`);
    if (q.after)
      conds.push(
        sql`(${start}, r.email, ${reason}::text) < (${q.after.at}::timestamptz, ${q.after.email}, ${q.after.reason}::text)`,
      );
    return sql`(SELECT r.email, ${reason}::text AS reason, ${select}
                  FROM recipients r WHERE ${sql.join(conds, sql` AND `)}
                 ORDER BY ${start} DESC, r.email DESC
                 LIMIT ${q.limit})`;
  });
  const { rows } = await sql<SuppressionRow>`
    SELECT * FROM (${sql.join(parts, sql` UNION ALL `)}) s
     ORDER BY s.created_at DESC, s.email DESC, s.reason DESC
     LIMIT ${q.limit}`.execute(db);
  return rows;
}

/**
 * The app's suppression of an address (reason manual), creating its row if need be: a standing one
 * keeps when it began and takes the new end and note. Returns the entry.
 */
export async function addManualSuppression(
  db: Db,
  q: {
    environmentId: string;
    tenantId: string;
    email: string;
    until: Date | null;
    note: string | null;
    /**
     * The operator's suppress: a standing one is never shortened (one without an end keeps none,
     * else the later end wins) and keeps its note when none is given. Without it (the app's own
     * add), the new end and note replace the old.
     */
    extendOnly?: boolean;
  },
  now: Date,
): Promise<SuppressionRow> {
  const standing = sql`is_manually_suppressed(r.manual_suppressed_at, r.manual_suppressed_until, ${now})`;
  const until = q.extendOnly
    ? sql`CASE WHEN NOT ${standing} THEN ${q.until}::timestamptz
               WHEN r.manual_suppressed_until IS NULL OR ${q.until}::timestamptz IS NULL THEN NULL
               ELSE GREATEST(r.manual_suppressed_until, ${q.until}::timestamptz) END`
    : sql`${q.until}::timestamptz`;
  const note = q.extendOnly
    ? sql`CASE WHEN ${standing} THEN coalesce(${q.note}::text, r.manual_suppression_note) ELSE ${q.note}::text END`
    : sql`${q.note}::text`;
  const { rows } = await sql<SuppressionRow>`
    INSERT INTO recipients AS r (environment_id, tenant_id, email, manual_suppressed_at,
                                 manual_suppressed_until, manual_suppression_note, created_at, updated_at)
    VALUES (${q.environmentId}, ${q.tenantId}, ${q.email}, ${now}, ${q.until}, ${q.note}, ${now}, ${now})
    ON CONFLICT (environment_id, email) DO UPDATE SET
      manual_suppressed_at = CASE WHEN ${standing} THEN r.manual_suppressed_at ELSE ${now} END,
      manual_suppressed_until = ${until},
      manual_suppression_note = ${note},
      updated_at = ${now}
    RETURNING r.email, 'manual' AS reason, r.manual_suppressed_at AS created_at,
              r.manual_suppressed_until AS until, r.manual_suppression_note AS note`.execute(db);
  const row = rows[0]!;
  // one that begins now (a standing one changed keeps its start)
  if (row.created_at.getTime() === now.getTime())
    await queueRecipientEvent(
      db,
      { ...q, type: 'recipient.suppressed', reason: 'manual', until: row.until },
      now,
    );
  return row;
}

/**
 * Ends the app's suppression of an address; the number of rows changed (0 or 1). One that was
 * still in force is reported (recipient.unsuppressed); one whose `until` had passed ends silently.
 */
export async function clearManualSuppression(
  db: Db,
  q: { environmentId: string; email: string },
  now: Date,
): Promise<number> {
  // `old`: the row as the statement began, for whether it was in force
  const { rows } = await sql<{ tenant_id: string; was_standing: boolean }>`
    UPDATE recipients r
       SET manual_suppressed_at = NULL, manual_suppressed_until = NULL, manual_suppression_note = NULL,
           updated_at = ${now}
      FROM recipients old
     WHERE old.environment_id = r.environment_id AND old.email = r.email
       AND r.environment_id = ${q.environmentId} AND r.email = ${q.email}
       AND r.manual_suppressed_at IS NOT NULL
    RETURNING r.tenant_id,
              is_manually_suppressed(old.manual_suppressed_at, old.manual_suppressed_until, ${now}) AS was_standing`.execute(
    db,
  );
  for (const r of rows)
    if (r.was_standing)
      await queueRecipientEvent(
        db,
        { ...q, tenantId: r.tenant_id, type: 'recipient.unsuppressed', reason: 'manual' },
        now,
      );
  return rows.length;
}
