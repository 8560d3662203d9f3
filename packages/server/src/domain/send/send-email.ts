// POST /v1/send, in DESIGN.md §3 order. Authentication and access checks (step 1) and the body
// shape (step 2) run before this use-case; it does steps 2 (Idempotency-Key) to 11. Steps 4 to 6
// and 8 need no database and run here; steps 3, 7, 9, 10 and 11 run in the accept's one
// statement (db/functions/accept_messages.sql), which answers the first refusal's code, so a send
// costs one round trip whether it is accepted or refused.
import { isIdempotencyKey } from '@mailsvc/contract/http';
import {
  getTemplate,
  TemplateNotFoundError,
  type TemplateVersion,
  TemplateVersionNotFoundError,
  validateTemplateData,
} from '@mailsvc/templates';
import {
  type AcceptItem,
  type AcceptOutcome,
  chooseSendingDomain,
  type DomainRefusal,
  findIdempotencyRecord,
  type IdempotencyRecord,
} from '../../db/repositories/send.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { type AuthContext, requireTemplateCategory } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { type DomainNotReady, domainNotReady } from '../domains/not-ready.js';
import { maskEmail, parseEmail } from '../email.js';
import { usagePeriod } from '../quota/period.js';
import { recipientRefusalError } from '../recipients/eligibility.js';
import { parseTimestampToMs } from '../timestamp.js';
import { requestDigest } from './canonical-json.js';
import { domainRefusalError, resolveSender, type Sender } from './from-rule.js';
import { IDEMPOTENCY_WINDOW_MS, messagePriority } from './message-policy.js';
import { checkScheduledAt, expiryOf } from './schedule.js';

export interface SendInput {
  templateId: string;
  to: string;
  data: Record<string, unknown>;
  templateVersion?: string;
  from?: string;
  fromName?: string;
  replyTo?: string;
  /** Never rendered, never logged (it is the app's: it may name its users). */
  metadata?: Record<string, string>;
  /** RFC 3339: queue the message then (domain/send/schedule.ts). */
  scheduledAt?: string;
}

export interface SendResult {
  status: 'accepted';
  messageId: string;
  idempotent: boolean;
}

export function checkIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!isIdempotencyKey(value)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 120 printable ASCII characters.', [
      {
        path: '/headers/idempotency-key',
        message: 'must be 1 to 120 printable ASCII characters without spaces',
      },
    ]);
  }
  return value;
}

/**
 * What "the same request" means for an Idempotency-Key: the body with the recipient normalised
 * and the template version resolved, so that an omitted version and the version it resolves to
 * (the wrapper always sends one), Jane@Example.com and jane@example.com, or metadata {} and none
 * are the same send.
 * An unknown template or version is kept as sent: that request fails later anyway.
 */
export function comparableRequest(input: SendInput, to: string): SendInput {
  let templateVersion = input.templateVersion;
  try {
    templateVersion = getTemplate(input.templateId, input.templateVersion).version.version;
  } catch {}
  // metadata {} is no metadata, as stored
  const { metadata, ...rest } = input;
  const kept = storedMetadata(metadata);
  // one instant, however it is written (a malformed one fails later anyway)
  const due = rest.scheduledAt !== undefined ? parseTimestampToMs(rest.scheduledAt) : null;
  return {
    ...rest,
    to,
    ...(templateVersion !== undefined && { templateVersion }),
    ...(kept && { metadata: kept }),
    ...(due && { scheduledAt: due.toISOString() }),
  };
}

export function findVersion(input: Pick<SendInput, 'templateId' | 'templateVersion'>): TemplateVersion {
  try {
    return getTemplate(input.templateId, input.templateVersion).version;
  } catch (err) {
    if (err instanceof TemplateNotFoundError) {
      throw new ApiError('template_not_found', `No template ${input.templateId}.`);
    }
    if (err instanceof TemplateVersionNotFoundError) {
      throw new ApiError(
        'template_version_not_found',
        `Template ${input.templateId} has no published version ${input.templateVersion}.`,
      );
    }
    throw err;
  }
}

/** Step 8: the environment's sending status. */
export function checkSendingStatus(auth: AuthContext): void {
  if (auth.sendingStatus === 'paused')
    throw new ApiError('app_paused', 'Sending is paused for this environment.');
  if (auth.sendingStatus === 'blocked')
    throw new ApiError('app_blocked', 'Sending is blocked for this environment.');
}

/**
 * Step 5: the data against the version's schema (a validated copy, defaults applied); 400
 * invalid_template_data with every failing field at its path under `dataPath` otherwise.
 */
export function checkTemplateData(
  version: TemplateVersion,
  data: unknown,
  dataPath: string,
): Record<string, unknown> {
  const checked = validateTemplateData(version, data);
  if (!checked.ok) {
    throw new ApiError(
      'invalid_template_data',
      `The data does not match template ${version.templateId} ${version.version}.`,
      checked.errors.map((e) => ({ path: `${dataPath}${e.path === '/' ? '' : e.path}`, message: e.message })),
    );
  }
  return checked.data;
}

/**
 * Steps 4 (template), then a send key's template categories (403 insufficient_scope, DESIGN.md
 * §12: the template's category is known only now), and 5 (template data).
 */
function checkTemplate(
  auth: AuthContext,
  input: SendInput,
): { version: TemplateVersion; data: Record<string, unknown> } {
  const version = findVersion(input);
  requireTemplateCategory(auth, version.category, version.templateId);
  return { version, data: checkTemplateData(version, input.data, '/data') };
}

/**
 * Steps 4 to 6, then scheduledAt (its limits depend on the template's category; schedule.ts): no
 * reads. `at` is where the send sits in the request ('' for /v1/send, '/items/3' in a batch).
 */
export function checkWithoutReads(auth: AuthContext, input: SendInput, now: Date, at = '') {
  const template = checkTemplate(auth, input);
  const sender = resolveSender(auth, input);
  const scheduledAt =
    input.scheduledAt === undefined
      ? null
      : checkScheduledAt(input.scheduledAt, template.version.category, now, now, `${at}/scheduledAt`);
  return { ...template, sender, scheduledAt };
}

export type CheckedSend = ReturnType<typeof checkWithoutReads>;

/** What is stored of a send's metadata: null for none (an empty object included). */
export function storedMetadata(metadata: Record<string, string> | undefined): Record<string, string> | null {
  return metadata !== undefined && Object.keys(metadata).length > 0 ? metadata : null;
}

/** Step 3: a live record of the key answers as its replay, or 409 for a different request. */
function replay(record: IdempotencyRecord, digest: Buffer | undefined): SendResult {
  // A key that holds a bulk send (no message) is a different request too.
  if (record.messageId === null || !digest || !record.requestSha256.equals(digest)) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request in the last 24 hours.',
    );
  }
  return { status: 'accepted', messageId: record.messageId, idempotent: true };
}

/** Steps 7 and 9's answer, from the code accept_messages() or choose_sending_domain() gave. */
export function refusalError(
  refusal: Extract<AcceptOutcome, { kind: 'refused' }>['refusal'],
  sendingDomain: string,
  sender: Sender,
  notReady?: DomainNotReady,
): ApiError {
  return refusal === 'sending_domain_not_ready' || refusal === 'from_domain_not_allowed'
    ? domainRefusalError(refusal as DomainRefusal, sendingDomain, sender, notReady)
    : recipientRefusalError(refusal);
}

export interface SendRequestFacts {
  to: string;
  metadata: Record<string, string> | null;
  idempotencyKey: string | undefined;
  digest: Buffer | undefined;
  now: Date;
}

export function acceptItem(
  deps: Deps,
  auth: AuthContext,
  send: CheckedSend,
  r: SendRequestFacts,
): AcceptItem {
  const { version, data, sender, scheduledAt } = send;
  const at = r.now.getTime();
  return {
    message: {
      id: newId('msg', at),
      tenantId: auth.tenantId,
      projectId: auth.projectId,
      environmentId: auth.environmentId,
      apiKeyId: auth.keyId,
      templateId: version.templateId,
      templateVersion: version.version,
      category: version.category,
      priority: messagePriority(version.category, false),
      toEmail: r.to,
      fromEmail: sender.fromEmail,
      fromName: sender.fromName,
      replyTo: sender.replyTo,
      data,
      metadata: r.metadata,
      scheduledAt,
      expiresAt: expiryOf(version.category, r.now, scheduledAt),
    },
    period: usagePeriod(r.now).id,
    ...(r.idempotencyKey && {
      idempotency: {
        key: r.idempotencyKey,
        requestSha256: r.digest!,
        expiresAt: new Date(at + IDEMPOTENCY_WINDOW_MS),
      },
    }),
    eventId: newId('evt', at),
    now: r.now,
    defaultDomain: deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN,
  };
}

/**
 * Steps 3 and 7 to 11 in the accept's one statement, shared with the other sends accepted at the
 * same moment (group commit, db/batcher.ts); settles once that transaction committed.
 */
async function accept(
  deps: Deps,
  auth: AuthContext,
  send: CheckedSend,
  r: SendRequestFacts,
): Promise<SendResult> {
  const item = acceptItem(deps, auth, send, r);
  const outcome = await deps.send.accepts.call(item);
  switch (outcome.kind) {
    case 'refused':
      throw refusalError(
        outcome.refusal,
        outcome.sendingDomain,
        send.sender,
        outcome.refusal === 'sending_domain_not_ready'
          ? await domainNotReady(deps.db, auth.tenantId, outcome.sendingDomain)
          : undefined,
      );
    case 'quota_exceeded':
      throw new ApiError(
        'monthly_quota_exceeded',
        'The monthly quota is used up and the plan allows no overage.',
      );
    case 'idempotency_taken':
      // The holder committed first (or is an earlier send of the same batch).
      return replay(outcome.record, r.digest);
    case 'accepted':
      if (!send.scheduledAt) deps.queue.notify();
      deps.log.info(
        { messageId: item.message.id, template: send.version.templateId, to: maskEmail(r.to) },
        'message accepted',
      );
      return { status: 'accepted', messageId: item.message.id, idempotent: false };
  }
}

/**
 * A paused or blocked environment (step 8): steps 3 and 7 answer before it, from one read
 * (choose_sending_domain() and the key's record): a replay of a send accepted earlier, else the
 * refusal. Nothing is accepted.
 */
export async function answerWhileNotActive(
  deps: Deps,
  auth: AuthContext,
  send: CheckedSend,
  r: SendRequestFacts,
): Promise<SendResult> {
  const chosen = await chooseSendingDomain(deps.db, {
    tenantId: auth.tenantId,
    projectId: auth.projectId,
    environmentId: auth.environmentId,
    fromEmail: send.sender.fromEmail,
    defaultDomain: deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN,
    idempotencyKey: r.idempotencyKey,
    now: r.now,
  });
  if (chosen.idempotency) return replay(chosen.idempotency, r.digest);
  if (chosen.refusal)
    throw domainRefusalError(
      chosen.refusal,
      chosen.sendingDomain,
      send.sender,
      chosen.refusal === 'sending_domain_not_ready'
        ? await domainNotReady(deps.db, auth.tenantId, chosen.sendingDomain)
        : undefined,
    );
  checkSendingStatus(auth);
  throw new Error(`answerWhileNotActive called for a ${auth.sendingStatus} environment`);
}

export async function sendEmail(
  deps: Deps,
  auth: AuthContext,
  input: SendInput,
  rawIdempotencyKey: string | string[] | undefined,
): Promise<SendResult> {
  const now = deps.clock.now();
  // 2. the rest of the body shape: the recipient and the Idempotency-Key header
  const to = parseEmail(input.to);
  if (!to.ok)
    throw new ApiError('invalid_request', `to ${to.reason}.`, [{ path: '/to', message: to.reason }]);
  const idempotencyKey = checkIdempotencyKey(rawIdempotencyKey);
  const digest = idempotencyKey ? requestDigest(comparableRequest(input, to.address)) : undefined;
  const facts: SendRequestFacts = {
    to: to.address,
    metadata: storedMetadata(input.metadata),
    idempotencyKey,
    digest,
    now,
  };

  let send: CheckedSend;
  try {
    send = checkWithoutReads(auth, input, now);
  } catch (err) {
    // 3. answers before 4 to 6: a key an earlier request holds is that request's replay (or 409).
    if (!(err instanceof ApiError) || idempotencyKey === undefined) throw err;
    const held = await findIdempotencyRecord(deps.db, auth.environmentId, idempotencyKey, now);
    if (held) return replay(held, digest);
    throw err;
  }
  if (auth.sendingStatus !== 'active') return answerWhileNotActive(deps, auth, send, facts);
  return accept(deps, auth, send, facts);
}
