// Operators' commands for bulk sends (DESIGN.md §7): show a job, resume one the reputation guard
// paused, cancel one (its waiting messages become `canceled`). Each change is audited in the
// command's transaction.
import type { Static } from '@sinclair/typebox';
import { auditedChange } from '../../db/repositories/audit.js';
import { cancelBulkJob, resumeBulkJob } from '../../db/repositories/bulk.js';
import { findBulkJob } from '../../db/repositories/bulk-jobs.js';
import { ApiError } from '../../errors.js';
import { toBulkJob } from '../bulk/get-bulk-send.js';
import { IdOf, Strict } from './schemas.js';
import type { AdminDeps } from './scope.js';

export const JobInput = Strict({ id: IdOf('job') });

/** The job as the API shows it (its status with `completed` derived), and its tenant. */
async function requireJob(deps: AdminDeps, id: string) {
  const job = await findBulkJob(deps.db, {}, id);
  if (!job) throw new ApiError('not_found', `No bulk send ${id}.`);
  return { job: toBulkJob(job), tenantId: job.tenantId };
}

export async function showJob(deps: AdminDeps, input: Static<typeof JobInput>) {
  return { job: (await requireJob(deps, input.id)).job };
}

export async function resumeJob(deps: AdminDeps, input: Static<typeof JobInput>, actor: string) {
  const { job, tenantId } = await requireJob(deps, input.id);
  if (job.status !== 'paused_bounce_rate') {
    throw new ApiError(
      'conflict',
      `Bulk send ${input.id} is ${job.status}; only a paused one can be resumed.`,
    );
  }
  const now = deps.clock.now();
  await auditedChange(
    deps.db,
    now,
    (trx) => resumeBulkJob(trx, input.id, now),
    () => ({
      tenantId,
      environmentId: job.environmentId,
      actor,
      action: 'jobs.resume',
      targetType: 'bulk_job',
      targetId: input.id,
      details: { previousStatus: job.status },
    }),
  );
  return { job: { id: input.id, status: 'running' } };
}

export async function cancelJob(deps: AdminDeps, input: Static<typeof JobInput>, actor: string) {
  const { job, tenantId } = await requireJob(deps, input.id);
  if (job.status === 'canceled' || job.status === 'completed') {
    throw new ApiError(
      'conflict',
      `Bulk send ${input.id} is already ${job.status}; nothing is left to cancel.`,
    );
  }
  const now = deps.clock.now();
  const result = await auditedChange(
    deps.db,
    now,
    (trx) => cancelBulkJob(trx, input.id, now),
    (result) => ({
      tenantId,
      environmentId: job.environmentId,
      actor,
      action: 'jobs.cancel',
      targetType: 'bulk_job',
      targetId: input.id,
      details: { previousStatus: job.status, canceledMessages: result?.canceled ?? 0 },
    }),
  );
  return { job: { id: input.id, status: 'canceled', canceledMessages: result?.canceled ?? 0 } };
}
