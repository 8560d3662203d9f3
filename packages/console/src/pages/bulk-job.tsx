// A bulk send's progress: POST /v1/contacts/send/get every second while the job runs, its
// messages by status, and the contacts it skipped by reason.
import { useEffect, useState } from 'preact/hooks';
import { CopyButton, DateTime, ErrorBox, Loading, StatusBadge, TableWrap } from '../components/ui.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';
import type { Mailsvc } from '../sdk.js';
import { SKIP_REASONS, type SkipCounts } from './bulk-request.js';

type Job = Awaited<ReturnType<Mailsvc['contacts']['getSend']>>['job'];

const POLL_MS = 1000;
/** Statuses in which a job's message still waits for its delivery (docs/bulk.md). */
const WAITING = ['queued', 'sending', 'deferred'];

export function SkipTable({ skipped, label }: { skipped: SkipCounts; label: string }) {
  return (
    <TableWrap label={label}>
      <table>
        <thead>
          <tr>
            <th scope="col">Skipped because</th>
            <th scope="col">Contacts</th>
          </tr>
        </thead>
        <tbody>
          {SKIP_REASONS.map(([reason, text]) => (
            <tr key={reason}>
              <td>{text}</td>
              <td>{skipped[reason] ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function StatusTable({ progress }: { progress: Job['progress'] }) {
  const rows = Object.entries(progress).sort(([a], [b]) => a.localeCompare(b));
  if (rows.length === 0) return <p class="empty">No message has a status yet.</p>;
  return (
    <TableWrap label="Messages by status">
      <table>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Messages</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([status, n]) => (
            <tr key={status}>
              <td>
                <StatusBadge value={status} />
              </td>
              <td>{n}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The job, read again every second while it runs; `check` reads it once more. */
function useJob(jobId: string) {
  const { client } = useConsole();
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const res = await client.contacts.getSend({ jobId });
        if (!alive) return;
        setJob(res.job);
        setError(null);
        if (res.job.status === 'running') timer = setTimeout(poll, POLL_MS);
      } catch (e) {
        if (alive) setError(e);
      }
    };
    void poll();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [client, jobId, tick]);
  return { job, error, check: () => setTick((t) => t + 1) };
}

function JobFacts({ job }: { job: Job }) {
  const target = [
    job.target.groupSlug ? `group ${job.target.groupSlug}` : '',
    job.target.contactCount > 0 ? `${job.target.contactCount} named contacts` : '',
  ].filter(Boolean);
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge value={job.status} />
      </dd>
      <dt>Template</dt>
      <dd>
        {job.templateId} {job.templateVersion}
      </dd>
      <dt>Recipients</dt>
      <dd>{target.join(' and ') || '—'}</dd>
      <dt>Queued</dt>
      <dd>{job.queued} messages</dd>
      <dt>Created</dt>
      <dd>
        <DateTime iso={job.createdAt} />
      </dd>
    </dl>
  );
}

function JobProgress({ job }: { job: Job }) {
  const waiting = WAITING.reduce((n, s) => n + (job.progress[s] ?? 0), 0);
  const done = Math.max(job.queued - waiting, 0);
  const failed = ['bounced', 'failed', 'suppressed', 'expired', 'canceled'].reduce(
    (n, s) => n + (job.progress[s] ?? 0),
    0,
  );
  return (
    <>
      <div class="import-progress">
        <label for="bulk-progress">Bulk send progress</label>
        <progress id="bulk-progress" max={Math.max(job.queued, 1)} value={job.queued === 0 ? 1 : done}>
          {done} of {job.queued}
        </progress>
      </div>
      <p class="import-status" aria-live="polite">
        {`${done} of ${job.queued} messages done, ${waiting} waiting, ${failed} not delivered (${job.status.replace(/_/g, ' ')})`}
      </p>
    </>
  );
}

export function BulkJobView({ jobId }: { jobId: string }) {
  const { job, error, check } = useJob(jobId);
  /** A paused job waits for an operator, and a read that failed may work again: offer to look again. */
  const canCheck = Boolean(error) || job?.status === 'paused_bounce_rate';
  return (
    <section class="panel" aria-labelledby="bulk-job-h">
      <h2 id="bulk-job-h">Bulk send job</h2>
      <p class="secret-row">
        <span>
          Job id: <code data-testid="bulk-job-id">{jobId}</code>
        </span>
        <CopyButton text={jobId} label="Copy job id" />{' '}
        <a href={href('/emails', { bulkJobId: jobId })}>Its messages</a>
      </p>
      <ErrorBox error={error} />
      {job ? (
        <>
          <JobProgress job={job} />
          {job.status === 'paused_bounce_rate' ? (
            <p class="alert alert-error">
              Paused: hard bounces passed 5% after 200 delivery attempts. Its waiting messages are held until
              an operator resumes or cancels it (<code>mailsvc admin jobs resume {jobId}</code>).
            </p>
          ) : null}
          <JobFacts job={job} />
          <h3>Messages by status</h3>
          <StatusTable progress={job.progress} />
          <h3>Skipped contacts</h3>
          <SkipTable skipped={job.skipped} label="Skipped contacts" />
        </>
      ) : error ? null : (
        <Loading />
      )}
      {canCheck ? (
        <div class="actions">
          <button type="button" class="btn" onClick={check}>
            Check again
          </button>
        </div>
      ) : null}
    </section>
  );
}
