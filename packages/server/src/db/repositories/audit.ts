import { newId } from '../../ids.js';
import type { Db } from '../schema.js';
import { inTransaction } from '../transaction.js';

export interface AuditEvent {
  tenantId: string | null;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
}

export async function insertAuditEvent(db: Db, e: AuditEvent, now: Date): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: newId('evt', now.getTime()),
      tenant_id: e.tenantId,
      actor: e.actor,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId,
      details: JSON.stringify(e.details ?? {}),
      created_at: now,
    })
    .execute();
}

/**
 * A change and its audit event, written in one transaction (STYLE.md §Request flow 5): `change`
 * runs first, then `event` says what to record from its result, at `now`; null records nothing
 * (nothing found, or nothing changed that is audited). A throw in either writes neither.
 */
export function auditedChange<T>(
  db: Db,
  now: Date,
  change: (trx: Db) => Promise<T>,
  event: (result: T) => AuditEvent | null,
): Promise<T> {
  return inTransaction(db, async (trx) => {
    const result = await change(trx);
    const e = event(result);
    if (e) await insertAuditEvent(trx, e, now);
    return result;
  });
}

/** A tenant's audit events, newest first. */
export function listAuditEvents(db: Db, q: { tenantId: string; since?: Date; limit: number }) {
  let query = db
    .selectFrom('audit_events')
    .select(['id', 'actor', 'action', 'target_type', 'target_id', 'details', 'created_at'])
    .where('tenant_id', '=', q.tenantId);
  if (q.since !== undefined) query = query.where('created_at', '>=', q.since);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}
