// POST /v1/send, in DESIGN.md §3 order. Authentication and access checks (step 1) and the body
// shape (step 2) run before this use-case; it does steps 2 (Idempotency-Key) to 11.
import { isIdempotencyKey } from '@mailsvc/contract/http';
import {
  getTemplate,
  TemplateNotFoundError,
  type TemplateVersion,
  TemplateVersionNotFoundError,
  validateTemplateData,
} from '@mailsvc/templates';
import type { IdempotencyRecord, SendingDomainRow } from '../../db/repositories/send.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { checkDisplayName, maskEmail, parseEmail } from '../email.js';
import { usagePeriod } from '../quota/period.js';
import { type Refusal, recipientRefusal } from '../recipients/eligibility.js';
import { requestDigest } from './canonical-json.js';
import { EXPIRY_MS, IDEMPOTENCY_WINDOW_MS, messagePriority } from './message-policy.js';

const REFUSAL_MESSAGES: Record<Refusal, string> = {
  recipient_complained: 'The recipient marked earlier mail as spam; nothing more is sent to them.',
  recipient_unsubscribed: 'The recipient unsubscribed from notifications.',
  recipient_suppressed: 'The recipient address is in a bounce cooldown or suppressed; check its status.',
};

export interface SendInput {
  templateId: string;
  to: string;
  data: Record<string, unknown>;
  templateVersion?: string;
  from?: string;
  fromName?: string;
  replyTo?: string;
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
 * (the wrapper always sends one), or Jane@Example.com and jane@example.com, are the same send.
 * An unknown template or version is kept as sent: that request fails later anyway.
 */
function comparableRequest(input: SendInput, to: string): SendInput {
  let templateVersion = input.templateVersion;
  try {
    templateVersion = getTemplate(input.templateId, input.templateVersion).version.version;
  } catch {}
  return { ...input, to, ...(templateVersion !== undefined && { templateVersion }) };
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

interface Sender {
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
}

export function resolveSender(
  auth: AuthContext,
  input: Pick<SendInput, 'from' | 'fromName' | 'replyTo'>,
  sendingDomain: string,
): Sender & { isExplicit: boolean } {
  const sender = resolveSenderWithoutDomain(auth, input);
  return { ...sender, fromEmail: sender.fromEmail ?? `notifications@${sendingDomain}` };
}

/**
 * Step 6: the From (explicit, else the environment's, else the project's; null when none is set,
 * for notifications@ the sending domain), the From name and the Reply-To.
 */
export function resolveSenderWithoutDomain(
  auth: AuthContext,
  input: Pick<SendInput, 'from' | 'fromName' | 'replyTo'>,
): Omit<Sender, 'fromEmail'> & { fromEmail: string | null; isExplicit: boolean } {
  const env = auth.environment.sender;
  const prj = auth.project.sender;
  let fromEmail: string | null;
  if (input.from !== undefined) {
    const parsed = parseEmail(input.from);
    if (!parsed.ok) {
      throw new ApiError('invalid_from_address', `from ${parsed.reason}.`, [
        { path: '/from', message: parsed.reason },
      ]);
    }
    fromEmail = parsed.address;
  } else {
    fromEmail = env.fromEmail ?? prj.fromEmail ?? null;
  }
  let fromName = env.fromName ?? prj.fromName;
  if (input.fromName !== undefined) {
    const problem = checkDisplayName(input.fromName);
    if (problem)
      throw new ApiError('invalid_from_name', `fromName ${problem}.`, [
        { path: '/fromName', message: problem },
      ]);
    fromName = input.fromName;
  }
  let replyTo = env.replyTo ?? prj.replyTo;
  if (input.replyTo !== undefined) {
    const parsed = parseEmail(input.replyTo);
    if (!parsed.ok) {
      throw new ApiError('invalid_reply_to', `replyTo ${parsed.reason}.`, [
        { path: '/replyTo', message: parsed.reason },
      ]);
    }
    replyTo = parsed.address;
  }
  return {
    fromEmail,
    fromName: fromName || null,
    replyTo: replyTo || null,
    isExplicit: input.from !== undefined,
  };
}

/**
 * The sending domain: the environment's, else the project's, else the tenant's, else the
 * service default. Without any From setting, the From is notifications@ this domain.
 */
export function chooseSendingDomain(
  deps: Deps,
  auth: AuthContext,
  domains: SendingDomainRow[],
): { custom: SendingDomainRow | undefined; sendingDomain: string } {
  const custom =
    domains.find((d) => d.environmentId === auth.environmentId) ??
    domains.find((d) => d.scope === 'project' && d.projectId === auth.projectId) ??
    domains.find((d) => d.scope === 'tenant');
  return { custom, sendingDomain: custom?.domain ?? deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN };
}

/** Step 7: a custom domain must be verified, and the From must be on the sending domain. */
export function checkSendingDomain(
  custom: SendingDomainRow | undefined,
  sendingDomain: string,
  sender: { fromEmail: string; isExplicit: boolean },
): void {
  if (custom && custom.status !== 'verified') {
    throw new ApiError(
      'sending_domain_not_ready',
      `The sending domain ${custom.domain} is not verified yet.`,
    );
  }
  const fromDomain = sender.fromEmail.slice(sender.fromEmail.lastIndexOf('@') + 1);
  if (fromDomain !== sendingDomain) {
    throw new ApiError(
      'from_domain_not_allowed',
      `${sender.isExplicit ? 'from' : 'The configured From Email'} must be an address on ${sendingDomain}.`,
      sender.isExplicit ? [{ path: '/from', message: `must be on ${sendingDomain}` }] : undefined,
    );
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

/** Steps 4 (template) and 5 (template data). */
function checkTemplate(input: SendInput): { version: TemplateVersion; data: Record<string, unknown> } {
  const version = findVersion(input);
  return { version, data: checkTemplateData(version, input.data, '/data') };
}

/** Steps 4 to 6, all of 6 but the default From (which needs the sending domain): no reads. */
function checkWithoutReads(auth: AuthContext, input: SendInput) {
  return { ...checkTemplate(input), sender: resolveSenderWithoutDomain(auth, input) };
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

  // 3. idempotency replay
  const replay = (record: IdempotencyRecord | undefined): SendResult | null => {
    if (!record) return null;
    // A key that holds a bulk send (no message) is a different request too.
    if (record.messageId === null || !record.requestSha256.equals(digest!)) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request in the last 24 hours.',
      );
    }
    return { status: 'accepted', messageId: record.messageId, idempotent: true };
  };

  // 10. quota and 11. accept, in one transaction shared with the other sends being accepted at
  // the same moment (group commit, db/batcher.ts); settles once that transaction committed.
  const accept = async (
    parts: ReturnType<typeof checkWithoutReads>,
    chosen: { sendingDomain: string; fromEmail: string } | undefined,
  ): Promise<SendResult | 'refused'> => {
    const { version, data, sender } = parts;
    const messageId = newId('msg', now.getTime());
    const outcome = await deps.send.accepts.call({
      message: {
        id: messageId,
        tenantId: auth.tenantId,
        projectId: auth.projectId,
        environmentId: auth.environmentId,
        apiKeyId: auth.keyId,
        templateId: version.templateId,
        templateVersion: version.version,
        category: version.category,
        priority: messagePriority(version.category, false),
        toEmail: to.address,
        fromEmail: chosen?.fromEmail ?? sender.fromEmail,
        fromName: sender.fromName,
        replyTo: sender.replyTo,
        sendingDomain: chosen?.sendingDomain ?? null,
        data,
        expiresAt: new Date(now.getTime() + EXPIRY_MS[version.category]),
      },
      period: usagePeriod(now).id,
      ...(idempotencyKey && {
        idempotency: {
          key: idempotencyKey,
          requestSha256: digest!,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        },
      }),
      eventId: newId('evt', now.getTime()),
      now,
      // Without a choice made here, steps 3, 7 and 9 run in the accept's own statement.
      ...(!chosen && { checks: { defaultDomain: deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN } }),
    });
    switch (outcome.kind) {
      case 'refused':
        return 'refused';
      case 'quota_exceeded':
        throw new ApiError(
          'monthly_quota_exceeded',
          'The monthly quota is used up and the plan allows no overage.',
        );
      case 'idempotency_taken':
        // The holder committed first (or is an earlier send of the same batch): answer as its
        // replay, or 409 for a different request.
        return replay(outcome.record)!;
      case 'accepted':
        deps.queue.notify();
        deps.log.info(
          { messageId, template: version.templateId, to: maskEmail(to.address) },
          'message accepted',
        );
        return { status: 'accepted', messageId, idempotent: false };
    }
  };

  // Every check in DESIGN.md §3 order on the context read for this send (steps 3, 7 and 9 read it),
  // then the accept: the path for sends that a check refuses, so each gets its exact answer.
  const checkInOrder = async (): Promise<SendResult> => {
    const context = await deps.send.reads.call({
      tenantId: auth.tenantId,
      projectId: auth.projectId,
      environmentId: auth.environmentId,
      email: to.address,
      idempotencyKey,
      now,
    });
    const earlier = replay(context.idempotency);
    if (earlier) return earlier;
    // 4. template, 5. template data
    const { version, data } = checkTemplate(input);
    // 6. from / fromName / replyTo
    const { custom, sendingDomain } = chooseSendingDomain(deps, auth, context.domains);
    const sender = resolveSender(auth, input, sendingDomain);
    // 7. sending domain
    checkSendingDomain(custom, sendingDomain, sender);
    // 8. sending status
    checkSendingStatus(auth);
    // 9. recipient
    const refusal = recipientRefusal(context.recipient, version.category, now);
    if (refusal) throw new ApiError(refusal, REFUSAL_MESSAGES[refusal]);
    // Every check passed on this read (the state changed since the accept refused it).
    const result = await accept({ version, data, sender }, { sendingDomain, fromEmail: sender.fromEmail });
    if (result === 'refused') throw new Error('accept_messages refused a send it was not asked to check');
    return result;
  };

  // The usual case, one round trip: steps 4 to 6 and 8 need no read and pass; the accept's own
  // statement runs steps 3, 7 and 9 and accepts. Otherwise, and when that statement refuses the
  // send, the context is read and the checks run here in order, for the exact error.
  let parts: ReturnType<typeof checkWithoutReads>;
  try {
    parts = checkWithoutReads(auth, input);
  } catch (err) {
    // With an Idempotency-Key, step 3 (which needs the read) answers first.
    if (err instanceof ApiError && idempotencyKey !== undefined) return checkInOrder();
    throw err;
  }
  // 8. A paused or blocked environment answers after the sending domain (step 7, the read).
  if (auth.sendingStatus !== 'active') return checkInOrder();
  const result = await accept(parts, undefined);
  return result === 'refused' ? checkInOrder() : result;
}
