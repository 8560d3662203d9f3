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
import { findIdempotencyRecord, type SendingDomainRow } from '../../db/repositories/send.js';
import type { TemplateCategory } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { checkDisplayName, maskEmail, parseEmail } from '../email.js';
import { usagePeriod } from '../quota/period.js';
import { type Refusal, recipientRefusal } from '../recipients/state.js';
import { requestDigest } from './canonical-json.js';

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

const HOUR = 3_600_000;
/** How long delivery is attempted before a message expires (DESIGN.md §4). */
export const EXPIRY_MS: Record<TemplateCategory, number> = {
  security: HOUR,
  transactional: 72 * HOUR,
  notification: 24 * HOUR,
};
/** Lower runs first: security before transactional before notification. */
export const PRIORITY: Record<TemplateCategory, number> = { security: 0, transactional: 2, notification: 4 };
export const IDEMPOTENCY_WINDOW_MS = 24 * HOUR;

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
  const env = auth.environment.sender;
  const prj = auth.project.sender;
  let fromEmail: string;
  if (input.from !== undefined) {
    const parsed = parseEmail(input.from);
    if (!parsed.ok) {
      throw new ApiError('invalid_from_address', `from ${parsed.reason}.`, [
        { path: '/from', message: parsed.reason },
      ]);
    }
    fromEmail = parsed.address;
  } else {
    fromEmail = env.fromEmail ?? prj.fromEmail ?? `notifications@${sendingDomain}`;
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

  // One read for steps 3, 7 and 9 (idempotency record, sending domains, recipient), shared with
  // the other sends read at the same moment; the checks still answer in DESIGN.md §3 order below.
  const context = await deps.send.reads.call({
    tenantId: auth.tenantId,
    projectId: auth.projectId,
    environmentId: auth.environmentId,
    email: to.address,
    idempotencyKey,
    now,
  });

  // 3. idempotency replay
  const replay = (
    record: { requestSha256: Buffer; messageId: string | null } | undefined,
  ): SendResult | null => {
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
  const earlier = replay(context.idempotency);
  if (earlier) return earlier;

  // 4. template, 5. template data
  const version = findVersion(input);
  const checked = validateTemplateData(version, input.data);
  if (!checked.ok) {
    throw new ApiError(
      'invalid_template_data',
      `The data does not match template ${version.templateId} ${version.version}.`,
      checked.errors.map((e) => ({ path: `/data${e.path === '/' ? '' : e.path}`, message: e.message })),
    );
  }

  const { custom, sendingDomain } = chooseSendingDomain(deps, auth, context.domains);

  // 6. from / fromName / replyTo
  const sender = resolveSender(auth, input, sendingDomain);

  // 7. sending domain
  checkSendingDomain(custom, sendingDomain, sender);

  // 8. sending status
  checkSendingStatus(auth);

  // 9. recipient
  const refusal = recipientRefusal(context.recipient, version.category, now);
  if (refusal) throw new ApiError(refusal, REFUSAL_MESSAGES[refusal]);

  // 10. quota and 11. accept, in one transaction shared with the other sends being accepted at
  // the same moment (group commit, db/batcher.ts); settles once that transaction committed.
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
      priority: PRIORITY[version.category],
      toEmail: to.address,
      fromEmail: sender.fromEmail,
      fromName: sender.fromName,
      replyTo: sender.replyTo,
      sendingDomain,
      data: checked.data,
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
  });
  if (outcome.kind === 'quota_exceeded') {
    throw new ApiError(
      'monthly_quota_exceeded',
      'The monthly quota is used up and the plan allows no overage.',
    );
  }
  if (outcome.kind === 'idempotency_taken') {
    // The holder committed first (or is an earlier send of the same batch, committed with it):
    // answer as its replay (or 409 for a different request).
    const replayed = replay(await findIdempotencyRecord(deps.db, auth.environmentId, idempotencyKey!, now));
    if (replayed) return replayed;
    throw new Error('idempotency record vanished between commit and read');
  }
  deps.queue.notify();
  deps.log.info({ messageId, template: version.templateId, to: maskEmail(to.address) }, 'message accepted');
  return { status: 'accepted', messageId, idempotent: false };
}
