// A bulk send's job as the reads show it: the row, its messages counted by status, and the
// queued count an Idempotency-Key's replay answers.
import type { BulkJobStatus, Db, MessageStatus } from '../schema.js';

export interface BulkJobRecord {
  id: string;
  tenantId: string;
  projectId: string;
  environmentId: string;
  templateId: string;
  templateVersion: string;
  status: BulkJobStatus;
  target: { groupSlug?: string; contactCount: number };
  queued: number;
  skipped: Record<string, number>;
  createdAt: Date;
  updatedAt: Date;
  pausedAt: Date | null;
  canceledAt: Date | null;
  /** Given to each of its messages; null without. */
  metadata: Record<string, string> | null;
  /** Messages of the job by current status. */
  progress: Partial<Record<MessageStatus, number>>;
}

/** One job of an environment with its messages counted by status (another's is undefined). */
export async function findBulkJob(
  db: Db,
  scope: { environmentId?: string; tenantId?: string },
  jobId: string,
): Promise<BulkJobRecord | undefined> {
  let query = db.selectFrom('bulk_jobs').selectAll().where('id', '=', jobId);
  if (scope.environmentId) query = query.where('environment_id', '=', scope.environmentId);
  if (scope.tenantId) query = query.where('tenant_id', '=', scope.tenantId);
  const job = await query.executeTakeFirst();
  if (!job) return undefined;
  const counts = await db
    .selectFrom('messages')
    .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
    .where('bulk_job_id', '=', jobId)
    .groupBy('status')
    .execute();
  const progress: Partial<Record<MessageStatus, number>> = {};
  for (const c of counts) progress[c.status] = Number(c.n);
  return {
    id: job.id,
    tenantId: job.tenant_id,
    projectId: job.project_id,
    environmentId: job.environment_id,
    templateId: job.template_id,
    templateVersion: job.template_version,
    status: job.status,
    target: job.target,
    queued: job.queued,
    skipped: job.skipped,
    createdAt: job.created_at,
    updatedAt: job.updated_at,
    pausedAt: job.paused_at,
    canceledAt: job.canceled_at,
    metadata: job.metadata as Record<string, string> | null,
    progress,
  };
}

/** The Idempotency-Key's live record when it holds a bulk job, with that job's queued count. */
export async function findBulkJobQueued(db: Db, jobId: string): Promise<number | undefined> {
  const row = await db.selectFrom('bulk_jobs').select('queued').where('id', '=', jobId).executeTakeFirst();
  return row?.queued;
}
