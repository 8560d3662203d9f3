import { newId } from '../../ids.js';
import type { Db } from '../schema.js';

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
