// A bulk send's webhook events (docs/webhooks.md): written by the reputation guard's transaction
// (bulk.ts noteBulkOutcomes), which locked the jobs' rows first.
import { sql } from 'kysely';
import { newId } from '../../ids.js';
import type { Db } from '../schema.js';
import { queueWebhookEvents } from './webhook-queue.js';

/**
 * The bulk_send.paused events of jobs the guard paused, and bulk_send.completed for running jobs
 * whose last message ended with these outcomes (once: completed_at). The job rows are locked by
 * the guard's statement before this runs, so of two workers recording a job's last two messages
 * the second sees the first's and writes the event.
 */
export async function queueBulkEvents(trx: Db, paused: string[], others: string[], now: Date): Promise<void> {
  const { rows: completed } =
    others.length === 0
      ? { rows: [] }
      : await sql<{ id: string }>`
    UPDATE bulk_jobs j SET completed_at = ${now}
     WHERE j.id IN (${sql.join(others)}) AND j.status = 'running' AND j.completed_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.bulk_job_id = j.id
                          AND m.status IN ('scheduled', 'queued', 'deferred', 'sending'))
    RETURNING j.id`.execute(trx);
  const ids = [...paused, ...completed.map((r) => r.id)];
  if (ids.length === 0) return;
  const jobs = await trx
    .selectFrom('bulk_jobs')
    .select(['id', 'tenant_id', 'environment_id', 'template_id', 'metadata', 'status'])
    .where('id', 'in', ids)
    .execute();
  await queueWebhookEvents(
    trx,
    jobs.map((j) => ({
      id: newId('evt', now.getTime()),
      tenantId: j.tenant_id,
      environmentId: j.environment_id,
      type: paused.includes(j.id) ? 'bulk_send.paused' : 'bulk_send.completed',
      data: {
        bulkJobId: j.id,
        templateId: j.template_id,
        status: paused.includes(j.id) ? j.status : 'completed',
        ...(paused.includes(j.id) && {
          reason:
            'hard bounces passed the reputation guard’s threshold (DESIGN.md §7): an operator resumes or cancels it',
        }),
        metadata: j.metadata ?? {},
        occurredAt: now.toISOString(),
      },
      createdAt: now,
    })),
  );
}
