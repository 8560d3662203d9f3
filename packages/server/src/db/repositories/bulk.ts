// Bulk sends (POST /v1/contacts/send, its dry run and send/get; DESIGN.md §7). Targets,
// deduplication, eligibility (recipient_refusal.sql, the rule single sends apply in TypeScript),
// the quota for the whole job (reserve_usage.sql) and the insert of every message are one
// set-wise statement; the dry run is the same classification, counted.
import { type RawBuilder, sql } from 'kysely';
import { ulid } from '../../ids.js';
import type { BulkJobStatus, Db, TemplateCategory } from '../schema.js';
import { queueBulkEvents } from './bulk-events.js';

/** A contact named by the request: by id or by (normalised) email; `ord` is its position. */
export interface NamedContact {
  ord: number;
  id: string | null;
  email: string | null;
}

export interface BulkTargets {
  tenantId: string;
  environmentId: string;
  category: TemplateCategory;
  named: NamedContact[];
  groupSlug: string | null;
  now: Date;
}

/**
 * Every target once per mention, classified: `reason` NULL when a message may go, else
 * not_found, duplicate (a contact named again, by id, email or the group; its first mention
 * counts), or the recipient rule's refusal (recipient_complained, recipient_unsubscribed,
 * recipient_suppressed) for the key's environment.
 */
function classified(t: BulkTargets): RawBuilder<unknown> {
  const members = sql`
    SELECT c.id AS contact_id, c.email, c.name
      FROM contact_group_members gm
      JOIN contacts c ON c.id = gm.contact_id AND c.tenant_id = gm.tenant_id
     WHERE gm.tenant_id = ${t.tenantId} AND gm.group_slug = ${t.groupSlug}`;
  // A group alone has no duplicates (its memberships are unique): no window, no sort.
  const targets =
    t.named.length === 0
      ? sql`SELECT contact_id, email, 1::bigint AS mention FROM (${members}) g`
      : sql`
    SELECT contact_id, email,
           row_number() OVER (PARTITION BY contact_id ORDER BY ord) AS mention
      FROM (
        SELECT n.ord, c.id AS contact_id, c.email
          FROM jsonb_to_recordset(${JSON.stringify(t.named)}::jsonb) AS n (ord integer, id text, email text)
          LEFT JOIN contacts c
            ON c.tenant_id = ${t.tenantId} AND (c.id = n.id OR c.email = n.email)
        ${t.groupSlug === null ? sql`` : sql`UNION ALL SELECT 2147483647, g.contact_id, g.email FROM (${members}) g`}
      ) mentions`;
  return sql`
    SELECT tg.contact_id, tg.email,
           CASE
             WHEN tg.contact_id IS NULL THEN 'not_found'
             WHEN tg.mention > 1 THEN 'duplicate'
             ELSE recipient_refusal(r.complained_at, r.unsubscribed_at, r.resubscribed_at,
                                    r.cooldown_until, r.suppressed_until, r.manual_suppressed_at, r.manual_suppressed_until, ${t.category}, ${t.now})
           END AS reason
      FROM (${targets}) tg
      LEFT JOIN recipients r ON r.environment_id = ${t.environmentId} AND r.email = tg.email`;
}

export interface Classification {
  eligible: number;
  /** Counts by reason as classified() names them. */
  skipped: Record<string, number>;
}

function toClassification(rows: { reason: string | null; n: number | string }[]): Classification {
  const result: Classification = { eligible: 0, skipped: {} };
  for (const r of rows) {
    if (r.reason === null) result.eligible = Number(r.n);
    else result.skipped[r.reason] = Number(r.n);
  }
  return result;
}

/** The dry run: the bulk send's classification, counted; writes nothing. */
export async function countBulkTargets(db: Db, t: BulkTargets): Promise<Classification> {
  const { rows } = await sql<{ reason: string | null; n: string }>`
    SELECT reason, count(*) AS n FROM (${classified(t)}) c GROUP BY reason`.execute(db);
  return toClassification(rows);
}

export interface BulkJobInput extends BulkTargets {
  jobId: string;
  projectId: string;
  apiKeyId: string;
  templateId: string;
  templateVersion: string;
  templateData: Record<string, unknown>;
  /** Each message's metadata (and the job's); null without. */
  metadata: Record<string, string> | null;
  priority: number;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  sendingDomain: string;
  expiresAt: Date;
  period: string;
  /** `msg_` + this (the 10 time characters of a ULID) + ulid_random_part() (16 random): 26 in all. */
  messageIdPrefix: string;
  target: { groupSlug?: string; contactCount: number };
  idempotency?: { key: string; requestSha256: Buffer; expiresAt: Date };
}

export type BulkJobOutcome =
  | { kind: 'queued'; queued: number; skipped: Record<string, number> }
  | { kind: 'quota_exceeded' }
  /** A live record holds the Idempotency-Key: nothing was written; replay the holder. */
  | { kind: 'idempotency_taken' };

class Rollback extends Error {
  constructor(readonly outcome: BulkJobOutcome) {
    super(outcome.kind);
  }
}

/**
 * The counter lock first (reserve_usage of 0), then the key, as accept_messages does: a
 * concurrent retry waits here and finds the key taken before it writes any message. False when a
 * live record holds the key.
 */
async function claimIdempotencyKey(
  trx: Db,
  j: BulkJobInput,
  key: NonNullable<BulkJobInput['idempotency']>,
): Promise<boolean> {
  await sql`SELECT reserve_usage(${j.tenantId}, ${j.environmentId}, ${j.period}, 0, false)`.execute(trx);
  const claimed = await sql`
    INSERT INTO idempotency_keys (environment_id, key, request_sha256, message_id, bulk_job_id,
                                  created_at, expires_at)
    VALUES (${j.environmentId}, ${key.key}, ${key.requestSha256}, NULL, ${j.jobId}, ${j.now},
            ${key.expiresAt})
    ON CONFLICT (environment_id, key) DO UPDATE
      SET request_sha256 = EXCLUDED.request_sha256, message_id = NULL,
          bulk_job_id = EXCLUDED.bulk_job_id, created_at = EXCLUDED.created_at,
          expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= ${j.now}
    RETURNING 1`.execute(trx);
  return claimed.rows.length > 0;
}

/**
 * The bulk send, in one transaction: with an Idempotency-Key, the counter lock and the key
 * first; then one INSERT … SELECT classifies every target, reserves the quota for all eligible
 * ones at once (reserve_usage(…, partial false): all or nothing) and queues a message per
 * eligible contact; then the job row. A refusal rolls everything back. Messages carry no template data of their own (the job's is filled per
 * contact at render time) and no `accepted` event (the job row records the acceptance;
 * POST /v1/messages/get shows it from created_at).
 */
export async function createBulkJob(db: Db, j: BulkJobInput): Promise<BulkJobOutcome> {
  const metadata = j.metadata === null ? null : JSON.stringify(j.metadata);
  try {
    return await db.transaction().execute(async (trx) => {
      if (j.idempotency && !(await claimIdempotencyKey(trx, j, j.idempotency)))
        throw new Rollback({ kind: 'idempotency_taken' });
      const { rows } = await sql<{ reason: string | null; n: string; granted: number }>`
        WITH classified AS MATERIALIZED (${classified(j)}),
        eligible AS (
          SELECT contact_id, email, gen_random_uuid() AS r FROM classified WHERE reason IS NULL
        ),
        quota AS MATERIALIZED (
          SELECT reserve_usage(${j.tenantId}, ${j.environmentId}, ${j.period},
                               (SELECT count(*) FROM eligible)::integer, false) AS granted
        ),
        inserted AS (
          INSERT INTO messages (id, tenant_id, project_id, environment_id, api_key_id, template_id,
                                template_version, category, priority, to_email, from_email,
                                from_name, reply_to, sending_domain, data, next_attempt_at,
                                expires_at, created_at, updated_at, bulk_job_id, contact_id,
                                metadata)
          SELECT 'msg_' || ${j.messageIdPrefix} || ulid_random_part(e.r), ${j.tenantId}, ${j.projectId},
                 ${j.environmentId}, ${j.apiKeyId}, ${j.templateId}, ${j.templateVersion},
                 ${j.category}, ${j.priority}, e.email, ${j.fromEmail}, ${j.fromName}, ${j.replyTo},
                 ${j.sendingDomain}, NULL, ${j.now}, ${j.expiresAt}, ${j.now}, ${j.now}, ${j.jobId},
                 e.contact_id, ${metadata}::jsonb
            FROM eligible e, quota q
           WHERE q.granted > 0
          RETURNING id
        ),
        pairs AS (
          INSERT INTO message_metadata (environment_id, key, value, message_id)
          SELECT ${j.environmentId}, kv.key, kv.value, i.id
            FROM inserted i CROSS JOIN jsonb_each_text(${metadata}::jsonb) kv
        )
        SELECT c.reason, count(*) AS n, (SELECT granted FROM quota) AS granted,
               (SELECT count(*) FROM inserted) AS inserted
          FROM classified c GROUP BY c.reason`.execute(trx);
      const counts = toClassification(rows);
      if (counts.eligible > 0 && (rows[0]?.granted ?? 0) === 0)
        throw new Rollback({ kind: 'quota_exceeded' });
      await trx
        .insertInto('bulk_jobs')
        .values({
          id: j.jobId,
          tenant_id: j.tenantId,
          project_id: j.projectId,
          environment_id: j.environmentId,
          api_key_id: j.apiKeyId,
          template_id: j.templateId,
          template_version: j.templateVersion,
          category: j.category,
          template_data: JSON.stringify(j.templateData),
          metadata,
          target: JSON.stringify(j.target),
          queued: counts.eligible,
          skipped: JSON.stringify(counts.skipped),
          created_at: j.now,
          updated_at: j.now,
        })
        .execute();

      return { kind: 'queued', queued: counts.eligible, skipped: counts.skipped } as const;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.outcome;
    throw err;
  }
}

/**
 * How far a paused job's waiting messages are moved out of the due range: their schedule (a
 * deferred message's next retry) is kept, shifted, and shifted back on resume.
 */
const PARKED = sql`interval '1000 years'`;

/**
 * The reputation guard (DESIGN.md §7): counts each recorded attempt and hard bounce of bulk
 * messages against their job's window, and pauses a running job whose hard bounces passed the
 * threshold after enough attempts: its waiting messages are parked out of the due range. The
 * job's status and its messages move in one transaction (the caller's, or one of its own), with
 * the job row locked first, as resume and cancel lock it. Returns the ids of jobs paused now.
 */
export async function noteBulkOutcomes(
  db: Db,
  outcomes: { jobId: string; attempts: number; hardBounces: number }[],
  policy: { minAttempts: number; maxHardBouncePercent: number },
  now: Date,
): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const apply = async (trx: Db): Promise<string[]> => {
    const input = outcomes.map((o) => ({
      job_id: o.jobId,
      attempts: o.attempts,
      hard_bounces: o.hardBounces,
    }));
    const { rows } = await sql<{ id: string; paused: boolean }>`
      WITH input AS (
        SELECT job_id, sum(attempts)::integer AS attempts, sum(hard_bounces)::integer AS hard_bounces
          FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb)
               AS x (job_id text, attempts integer, hard_bounces integer)
         GROUP BY job_id
      ), locked AS (
        SELECT j.id, j.status, j.guard_attempts + i.attempts AS attempts,
               j.guard_hard_bounces + i.hard_bounces AS hard_bounces
          FROM bulk_jobs j JOIN input i ON i.job_id = j.id
         ORDER BY j.id
           FOR UPDATE OF j
      ), decided AS (
        SELECT id, attempts, hard_bounces,
               status = 'running' AND attempts >= ${policy.minAttempts}
                 AND hard_bounces * 100 > attempts * ${policy.maxHardBouncePercent} AS pause
          FROM locked
      )
      UPDATE bulk_jobs j
         SET guard_attempts = d.attempts,
             guard_hard_bounces = d.hard_bounces,
             status = CASE WHEN d.pause THEN 'paused_bounce_rate' ELSE j.status END,
             paused_at = CASE WHEN d.pause THEN ${now} ELSE j.paused_at END,
             updated_at = ${now}
        FROM decided d
       WHERE j.id = d.id
      RETURNING j.id, d.pause AS paused`.execute(trx);
    const paused = rows.filter((r) => r.paused).map((r) => r.id);
    if (paused.length > 0) {
      await sql`
        UPDATE messages SET next_attempt_at = next_attempt_at + ${PARKED}
         WHERE bulk_job_id IN (${sql.join(paused)}) AND status IN ('queued', 'deferred')`.execute(trx);
    }
    await queueBulkEvents(
      trx,
      paused,
      rows.filter((r) => !r.paused).map((r) => r.id),
      now,
    );
    return paused;
  };
  return db.isTransaction ? apply(db) : db.transaction().execute(apply);
}

/**
 * Resumes a paused job: a new guard window, its waiting messages due again on their schedule. Returns the job's
 * status after the call (undefined: no such job). Run it in a transaction (the admin command's).
 */
export async function resumeBulkJob(db: Db, jobId: string, now: Date): Promise<BulkJobStatus | undefined> {
  const job = await db
    .updateTable('bulk_jobs')
    .set({ status: 'running', guard_attempts: 0, guard_hard_bounces: 0, paused_at: null, updated_at: now })
    .where('id', '=', jobId)
    .where('status', '=', 'paused_bounce_rate')
    .returning('status')
    .executeTakeFirst();
  if (!job) {
    const current = await db
      .selectFrom('bulk_jobs')
      .select('status')
      .where('id', '=', jobId)
      .executeTakeFirst();
    return current?.status;
  }
  // Parked messages come back on their own schedule; any that joined the queue after the pause
  // (an in-flight message deferred) were never parked.
  await sql`
    UPDATE messages SET next_attempt_at = next_attempt_at - ${PARKED}
     WHERE bulk_job_id = ${jobId} AND status IN ('queued', 'deferred')
       AND next_attempt_at > ${now}::timestamptz + interval '500 years'`.execute(db);
  return 'running';
}

/**
 * Cancels a job: its messages still waiting (queued or deferred) become `canceled`, and the job
 * drops its template data; messages being sent right now finish. Returns how many were canceled,
 * or undefined for an unknown job. Run it in a transaction (the admin command's).
 */
export async function cancelBulkJob(
  db: Db,
  jobId: string,
  now: Date,
): Promise<{ canceled: number; previousStatus: BulkJobStatus } | undefined> {
  const job = await db
    .selectFrom('bulk_jobs')
    .select('status')
    .where('id', '=', jobId)
    .forUpdate()
    .executeTakeFirst();
  if (!job) return undefined;
  // Each canceled message gets its timeline event (and so its message.canceled webhook) in the
  // same statement; event ids are ULIDs of `now` with random parts made set-wise (ulid.sql).
  const { rows: canceled } = await sql<{ id: string }>`
    WITH canceled AS (
      UPDATE messages SET status = 'canceled', next_attempt_at = ${now}, updated_at = ${now}
       WHERE bulk_job_id = ${jobId} AND status IN ('queued', 'deferred')
      RETURNING id, tenant_id
    )
    INSERT INTO message_events (id, message_id, tenant_id, type, details, created_at)
    SELECT 'evt_' || ${ulid(now.getTime()).slice(0, 10)} || ulid_random_part(gen_random_uuid()),
           id, tenant_id, 'canceled', '{}'::jsonb, ${now}
      FROM canceled
    RETURNING message_id AS id`.execute(db);
  const result = { numUpdatedRows: BigInt(canceled.length) };
  await db
    .updateTable('bulk_jobs')
    .set({ status: 'canceled', canceled_at: now, template_data: null, updated_at: now })
    .where('id', '=', jobId)
    .execute();
  return { canceled: Number(result.numUpdatedRows), previousStatus: job.status };
}
