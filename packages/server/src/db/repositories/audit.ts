import { newId } from '../../ids.js';
import type { Db } from '../schema.js';
import { inTransaction } from '../transaction.js';

export interface AuditEvent {
  tenantId: string | null;
  /** The environment it is about, for its own audit list (default: from an environment or recipient target). */
  environmentId?: string | null;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
}

/** An environment's or its recipient's event is the environment's (recipient ids: `env_…:masked`). */
function environmentOf(e: AuditEvent): string | null {
  if (e.targetType === 'environment') return e.targetId;
  if (e.targetType === 'recipient' && /^env_[^:]+:/.test(e.targetId)) return e.targetId.split(':')[0]!;
  return null;
}

export async function insertAuditEvent(db: Db, e: AuditEvent, now: Date): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: newId('evt', now.getTime()),
      tenant_id: e.tenantId,
      environment_id: e.environmentId ?? environmentOf(e),
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

/**
 * A page of an environment's audit events, newest first (event ids are ULIDs of created_at), after
 * `beforeId`, in an id range (a time range) and of some actions.
 */
export function listEnvironmentAuditPage(
  db: Db,
  environmentId: string,
  q: { actions?: readonly string[]; fromId?: string; belowId?: string; limit: number },
) {
  let query = db
    .selectFrom('audit_events')
    .select(['id', 'actor', 'action', 'target_type', 'target_id', 'details', 'created_at'])
    .where('environment_id', '=', environmentId);
  if (q.actions && q.actions.length > 0) query = query.where('action', 'in', [...q.actions]);
  if (q.fromId !== undefined) query = query.where('id', '>=', q.fromId);
  if (q.belowId !== undefined) query = query.where('id', '<', q.belowId);
  return query.orderBy('id', 'desc').limit(q.limit).execute();
}
