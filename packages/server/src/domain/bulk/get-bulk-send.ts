// POST /v1/contacts/send/get (extension, DESIGN.md §7): a bulk send of the key's environment and
// its messages counted by current status. Another environment's job is not found.
import type { GetBulkSendRequest, GetBulkSendResponse } from '@mailsvc/contract/api';
import { type BulkJobRecord, findBulkJob } from '../../db/repositories/bulk-jobs.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { toSkipCounts } from './skip-reasons.js';

/** Statuses in which a message of a job still waits for its delivery. */
const WAITING = ['queued', 'sending', 'deferred'] as const;

/** A job as the API and the admin command show it: its status with `completed` derived. */
export function toBulkJob(job: BulkJobRecord): GetBulkSendResponse['job'] {
  const isWaiting = WAITING.some((s) => (job.progress[s] ?? 0) > 0);
  return {
    jobId: job.id,
    status: job.status === 'running' && !isWaiting ? 'completed' : job.status,
    projectId: job.projectId,
    environmentId: job.environmentId,
    templateId: job.templateId,
    templateVersion: job.templateVersion,
    target: job.target,
    queued: job.queued,
    skipped: toSkipCounts(job.skipped),
    progress: job.progress,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    pausedAt: job.pausedAt?.toISOString() ?? null,
    canceledAt: job.canceledAt?.toISOString() ?? null,
    metadata: job.metadata ?? {},
  };
}

export async function getBulkSend(
  deps: Deps,
  auth: AuthContext,
  input: GetBulkSendRequest,
): Promise<Omit<GetBulkSendResponse, 'ok'>> {
  const job = await findBulkJob(deps.db, { environmentId: auth.environmentId }, input.jobId);
  if (!job) {
    throw new ApiError('job_not_found', 'No bulk send with this id in the key’s environment.', [
      { path: '/jobId', message: 'no such bulk send in this environment' },
    ]);
  }
  return { job: toBulkJob(job) };
}
