// POST /v1/contacts/send and /v1/contacts/send/dry-run (DESIGN.md §7): a template send to
// contacts named by id or email and/or a group, with the checks of POST /v1/send that apply to a
// whole job (§3 steps 2–8 and 10) and the recipient rule per contact (step 9) in SQL
// (db/repositories/bulk.ts). The dry run runs the same checks and the same classification,
// counted, and writes nothing.
import type { BulkSendRequest, SkipReason } from '@mailsvc/contract/api';
import { getTemplate } from '@mailsvc/templates';
import {
  type BulkJobInput,
  type BulkTargets,
  countBulkTargets,
  createBulkJob,
  type NamedContact,
} from '../../db/repositories/bulk.js';
import { findBulkJobQueued } from '../../db/repositories/bulk-jobs.js';
import { hasGroup } from '../../db/repositories/groups.js';
import { chooseSendingDomain, findIdempotencyRecord } from '../../db/repositories/send.js';
import { ApiError, type ErrorDetail } from '../../errors.js';
import { newId, ulid } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { domainNotReady } from '../domains/not-ready.js';
import { parseEmail } from '../email.js';
import { usagePeriod } from '../quota/period.js';
import { requestDigest } from '../send/canonical-json.js';
import { domainRefusalError, resolveSender, type Sender } from '../send/from-rule.js';
import { EXPIRY_MS, IDEMPOTENCY_WINDOW_MS, messagePriority } from '../send/message-policy.js';
import {
  checkIdempotencyKey,
  checkSendingStatus,
  checkTemplateData,
  findVersion,
  storedMetadata,
} from '../send/send-email.js';
import { contactPlaceholderProblems } from './contact-placeholders.js';
import { toSkipCounts } from './skip-reasons.js';

const CONTACT_ID = /^ct_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The request in the seed's reference shape, whichever shape it came in. */
interface BulkSend {
  templateId: string;
  templateVersion?: string;
  templateData: Record<string, unknown>;
  /** Where templateData came from: /templateData or /data (for error paths). */
  dataPath: '/templateData' | '/data';
  refs: { value: string; path: string }[];
  groupSlug: string | null;
  /** Given to each of the job's messages; null without. */
  metadata: Record<string, string> | null;
}

function invalid(message: string, details: ErrorDetail[]): ApiError {
  return new ApiError('invalid_request', message, details);
}

/**
 * The reference body or the tutorial alias (templateId, to, data), checked for the
 * combinations the schema cannot express; projectId and environmentId must be the key's own.
 */
function normalise(auth: AuthContext, body: BulkSendRequest): BulkSend {
  if (body.templateData !== undefined && body.data !== undefined) {
    throw invalid('Send templateData or its alias data, not both.', [
      { path: '/data', message: 'must not be sent together with templateData' },
    ]);
  }
  const templateData = body.templateData ?? body.data;
  if (templateData === undefined) {
    throw invalid(
      'Expected projectId, environmentId, templateId, templateData and contactIds or groupSlug.',
      [{ path: '/templateData', message: 'is required' }],
    );
  }
  if (body.templateData !== undefined) {
    const missing: ErrorDetail[] = [];
    if (body.projectId === undefined) missing.push({ path: '/projectId', message: 'is required' });
    if (body.environmentId === undefined) missing.push({ path: '/environmentId', message: 'is required' });
    if (missing.length > 0) {
      throw invalid(
        'Expected projectId, environmentId, templateId, templateData and contactIds or groupSlug.',
        missing,
      );
    }
  }
  if (body.projectId !== undefined && body.projectId !== auth.projectId) {
    throw new ApiError('project_not_found', "projectId is not the key's project.", [
      { path: '/projectId', message: "must be the API key's project" },
    ]);
  }
  if (body.environmentId !== undefined && body.environmentId !== auth.environmentId) {
    throw new ApiError('environment_not_found', "environmentId is not the key's environment.", [
      { path: '/environmentId', message: "must be the API key's environment" },
    ]);
  }
  const refs: BulkSend['refs'] = [];
  for (const [i, value] of (body.contactIds ?? []).entries()) refs.push({ value, path: `/contactIds/${i}` });
  if (typeof body.to === 'string') refs.push({ value: body.to, path: '/to' });
  else for (const [i, value] of (body.to ?? []).entries()) refs.push({ value, path: `/to/${i}` });
  if (refs.length === 0 && body.groupSlug === undefined) {
    throw invalid('Name the recipients: contactIds and/or groupSlug (or to).', [
      { path: '/contactIds', message: 'contactIds, groupSlug or to is required' },
    ]);
  }
  if (refs.length > 1000) {
    throw invalid('At most 1,000 contacts can be named in one request; use a group for more.', [
      { path: '/contactIds', message: 'must name at most 1000 contacts in all' },
    ]);
  }
  return {
    templateId: body.templateId,
    ...(body.templateVersion !== undefined && { templateVersion: body.templateVersion }),
    templateData,
    dataPath: body.templateData !== undefined ? '/templateData' : '/data',
    refs,
    groupSlug: body.groupSlug ?? null,
    metadata: storedMetadata(body.metadata),
  };
}

/**
 * What "the same request" means for an Idempotency-Key: either body shape, the recipients in any
 * order and spelling (ids as given, emails normalised), the template version resolved; never
 * the same as a POST /v1/send (the operation is part of it).
 */
function comparableBulkSend(send: BulkSend): unknown {
  let templateVersion = send.templateVersion;
  try {
    templateVersion = getTemplate(send.templateId, send.templateVersion).version.version;
  } catch {}
  const recipients = send.refs
    .map(({ value }) => {
      if (CONTACT_ID.test(value)) return value;
      const parsed = parseEmail(value);
      return parsed.ok ? parsed.address : value;
    })
    .sort();
  return {
    operation: 'sendToContacts',
    templateId: send.templateId,
    templateVersion: templateVersion ?? null,
    templateData: send.templateData,
    groupSlug: send.groupSlug,
    recipients,
    metadata: send.metadata,
  };
}

/** Contact ids as given; anything else must be an email (normalised as contacts store it). */
function toNamedContacts(refs: BulkSend['refs']): NamedContact[] {
  const problems: ErrorDetail[] = [];
  const named = refs.map((ref, ord): NamedContact => {
    if (CONTACT_ID.test(ref.value)) return { ord, id: ref.value, email: null };
    const parsed = parseEmail(ref.value);
    if (!parsed.ok) {
      problems.push({ path: ref.path, message: `must be a contact id (ct_…) or an email: ${parsed.reason}` });
      return { ord, id: null, email: null };
    }
    return { ord, id: null, email: parsed.address };
  });
  if (problems.length > 0) throw invalid('A named contact is neither a contact id nor an email.', problems);
  return named;
}

interface CheckedJob {
  send: BulkSend;
  targets: BulkTargets;
  version: ReturnType<typeof findVersion>;
  data: Record<string, unknown>;
  sender: Sender & { fromEmail: string };
  sendingDomain: string;
}

/** DESIGN.md §3 steps 4–8 for the whole job, in that order; the recipients are counted in SQL. */
async function checkJob(deps: Deps, auth: AuthContext, send: BulkSend, now: Date): Promise<CheckedJob> {
  const named = toNamedContacts(send.refs);
  const version = findVersion(send);
  const data = checkTemplateData(version, send.templateData, send.dataPath);
  const placeholderProblems = contactPlaceholderProblems(version, data, send.dataPath);
  if (placeholderProblems.length > 0) {
    throw new ApiError(
      'invalid_template_data',
      `The data does not match template ${version.templateId} ${version.version}.`,
      placeholderProblems,
    );
  }
  const configured = resolveSender(auth, {});
  const { sendingDomain, fromEmail, refusal } = await chooseSendingDomain(deps.db, {
    tenantId: auth.tenantId,
    projectId: auth.projectId,
    environmentId: auth.environmentId,
    fromEmail: configured.fromEmail,
    defaultDomain: deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN,
  });
  if (refusal)
    throw domainRefusalError(
      refusal,
      sendingDomain,
      configured,
      refusal === 'sending_domain_not_ready'
        ? await domainNotReady(deps.db, auth.tenantId, sendingDomain)
        : undefined,
    );
  const sender = { ...configured, fromEmail };
  checkSendingStatus(auth);
  if (send.groupSlug !== null && !(await hasGroup(deps.db, auth.tenantId, send.groupSlug))) {
    throw new ApiError('group_not_found', `No contact group ${send.groupSlug}.`, [
      { path: '/groupSlug', message: 'no such group in this tenant' },
    ]);
  }
  return {
    send,
    version,
    data,
    sender,
    sendingDomain,
    targets: {
      tenantId: auth.tenantId,
      environmentId: auth.environmentId,
      category: version.category,
      named,
      groupSlug: send.groupSlug,
      now,
    },
  };
}

/**
 * Only contacts were named, and none exists: the seed's 404 contact_not_found (with a group, or
 * when some exist, the unknown ones are counted as not_found instead).
 */
function checkSomeContactExists(
  job: CheckedJob,
  eligible: number,
  skipped: Record<SkipReason, number>,
): void {
  const { send } = job;
  if (
    send.groupSlug === null &&
    send.refs.length > 0 &&
    skipped.not_found === send.refs.length &&
    eligible === 0
  ) {
    throw new ApiError(
      'contact_not_found',
      send.refs.length === 1 ? 'No contact with this id or email.' : 'None of the named contacts exists.',
      send.refs.map((r) => ({ path: r.path, message: 'no such contact in this tenant' })),
    );
  }
}

export async function previewSendToContacts(
  deps: Deps,
  auth: AuthContext,
  body: BulkSendRequest,
): Promise<{ eligible: number; skipped: Record<SkipReason, number> }> {
  const now = deps.clock.now();
  const job = await checkJob(deps, auth, normalise(auth, body), now);
  const counts = await countBulkTargets(deps.db, job.targets);
  const skipped = toSkipCounts(counts.skipped);
  checkSomeContactExists(job, counts.eligible, skipped);
  return { eligible: counts.eligible, skipped };
}

type BulkSendAnswer = { jobId: string; queued: number; idempotent: boolean };

/**
 * The job an earlier send with this Idempotency-Key made, answered again; null when there was
 * none; 409 idempotency_key_reused when the key went with another request.
 */
async function replayBulkSend(
  deps: Deps,
  environmentId: string,
  idempotency: { key: string; digest: Buffer },
  now: Date,
): Promise<(BulkSendAnswer & { idempotent: true }) | null> {
  const record = await findIdempotencyRecord(deps.db, environmentId, idempotency.key, now);
  if (!record) return null;
  if (record.bulkJobId === null || !record.requestSha256.equals(idempotency.digest)) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request in the last 24 hours.',
    );
  }
  const queued = await findBulkJobQueued(deps.db, record.bulkJobId);
  if (queued === undefined) throw new Error('idempotency record names a missing bulk job');
  return { jobId: record.bulkJobId, queued, idempotent: true };
}

/** The bulk job to store for a checked send: its messages' template, sender, priority and expiry. */
function bulkJobInput(
  job: CheckedJob,
  auth: AuthContext,
  jobId: string,
  now: Date,
  idempotency: { key: string; digest: Buffer } | undefined,
): BulkJobInput {
  return {
    ...job.targets,
    jobId,
    projectId: auth.projectId,
    apiKeyId: auth.keyId,
    templateId: job.version.templateId,
    templateVersion: job.version.version,
    templateData: job.data,
    metadata: job.send.metadata,
    priority: messagePriority(job.version.category, true),
    fromEmail: job.sender.fromEmail,
    fromName: job.sender.fromName,
    replyTo: job.sender.replyTo,
    sendingDomain: job.sendingDomain,
    expiresAt: new Date(now.getTime() + EXPIRY_MS[job.version.category]),
    period: usagePeriod(now).id,
    messageIdPrefix: ulid(now.getTime()).slice(0, 10),
    target: {
      ...(job.send.groupSlug !== null && { groupSlug: job.send.groupSlug }),
      contactCount: job.send.refs.length,
    },
    ...(idempotency && {
      idempotency: {
        key: idempotency.key,
        requestSha256: idempotency.digest,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
      },
    }),
  };
}

export async function sendToContacts(
  deps: Deps,
  auth: AuthContext,
  body: BulkSendRequest,
  rawIdempotencyKey: string | string[] | undefined,
): Promise<BulkSendAnswer> {
  const now = deps.clock.now();
  const send = normalise(auth, body);
  const idempotencyKey = checkIdempotencyKey(rawIdempotencyKey);
  const idempotency = idempotencyKey
    ? { key: idempotencyKey, digest: requestDigest(comparableBulkSend(send)) }
    : undefined;
  const replay = () => (idempotency ? replayBulkSend(deps, auth.environmentId, idempotency, now) : null);
  const earlier = await replay();
  if (earlier) return earlier;

  const job = await checkJob(deps, auth, send, now);
  if (job.send.groupSlug === null) {
    // The seed's contact_not_found needs the count first: cheap, at most 1,000 named contacts.
    const counts = await countBulkTargets(deps.db, job.targets);
    checkSomeContactExists(job, counts.eligible, toSkipCounts(counts.skipped));
  }
  const jobId = newId('job', now.getTime());
  const outcome = await createBulkJob(deps.db, bulkJobInput(job, auth, jobId, now, idempotency));
  if (outcome.kind === 'quota_exceeded') {
    // A retry that lost the race to its own first attempt: that job used the quota; replay it.
    const replayed = await replay();
    if (replayed) return replayed;
    throw new ApiError(
      'monthly_quota_exceeded',
      'The monthly quota cannot hold every message of this send and the plan allows no overage; nothing was queued.',
    );
  }
  if (outcome.kind === 'idempotency_taken') {
    const replayed = await replay();
    if (replayed) return replayed;
    throw new Error('idempotency record vanished between commit and read');
  }
  if (outcome.queued > 0) deps.queue.notify();
  deps.log.info(
    { jobId, template: job.version.templateId, queued: outcome.queued, skipped: outcome.skipped },
    'bulk send queued',
  );
  return { jobId, queued: outcome.queued, idempotent: false };
}
