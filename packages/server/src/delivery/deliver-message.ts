// One attempt at one claimed message, as named steps (STEPS below; the claim happened in the
// worker): check expiry → re-check the recipient → check bulk data → render → build MIME → sign →
// send, then record. Each step either hands on to the next or ends the attempt with the status it
// records; a step that throws ends it with an `error` event and a deferral (failedUnexpectedly).
import { getTemplate, renderVersion } from '@mailsvc/templates';
import type { AttemptRecord, ClaimedMessage } from '../db/repositories/queue.js';
import { fillContactPlaceholders } from '../domain/bulk/contact-placeholders.js';
import { createUnsubscribeToken, SUBSCRIPTION_SCOPE } from '../domain/consent/unsubscribe-token.js';
import type { Deps } from '../domain/deps.js';
import { checkDisplayName, maskEmail } from '../domain/email.js';
import { signedMessageIdHeader, verpAddress } from '../domain/feedback/signed-references.js';
import { newId } from '../ids.js';
import { type DkimKey, signMessageAsync } from './dkim.js';
import { buildMime } from './mime.js';
import { nextAttemptAt } from './retry.js';
import type { DeliveryOutcome, Transport } from './transports/transport.js';

export interface DeliveryDeps extends Pick<Deps, 'db' | 'clock' | 'config' | 'log' | 'keys' | 'metrics'> {
  transport: Transport;
  /** The DKIM key of a sending domain, or null when it has none. */
  /** The signing key of `tenantId`'s verified (or degraded) `domain`, or null. */
  dkimKeyFor(tenantId: string, domain: string): Promise<DkimKey | null>;
  /** Records an attempt (queue.ts); false when the claim was lost to another worker. */
  record(r: AttemptRecord): Promise<boolean>;
}

export type Ending = Omit<AttemptRecord, 'messageId' | 'claimToken' | 'now' | 'event'> & {
  eventDetails: Record<string, unknown>;
  /** The event's type when it is not the new status ('error' for an unexpected throw). */
  eventType?: 'error';
};

const end = (
  status: AttemptRecord['status'],
  fields: Partial<Omit<Ending, 'status'>> & { eventDetails?: Record<string, unknown> } = {},
): Ending => ({
  status,
  isAttempt: false,
  nextAttemptAt: null,
  error: null,
  bounce: false,
  eventDetails: {},
  ...fields,
});

export function unsubscribeUrl(deps: Pick<Deps, 'config' | 'keys'>, m: ClaimedMessage): string {
  const token = createUnsubscribeToken(deps.keys.unsubscribe, {
    environmentId: m.environmentId,
    email: m.toEmail,
    scope: SUBSCRIPTION_SCOPE,
  });
  return `${deps.config.MAILSVC_PUBLIC_URL}/u/${token}`;
}

/**
 * The envelope sender: a signed VERP address (domain/feedback/signed-references.ts). A verified custom sending
 * domain whose return path the domain checker verified (domains/lifecycle.ts: MX of
 * bounces.<domain> to `mailsvc inbound`, SPF for the relay) gets its bounces there, so the
 * Return-Path aligns with From for SPF and DMARC. Every other message uses MAILSVC_BOUNCE_DOMAIN.
 */
export function bounceAddress(
  deps: Pick<Deps, 'config' | 'keys'>,
  messageId: string,
  verifiedDomain: string | undefined,
): string {
  const domain = verifiedDomain ? `bounces.${verifiedDomain}` : deps.config.MAILSVC_BOUNCE_DOMAIN;
  return verpAddress(deps.keys.verp, messageId, domain);
}

/** What the transport's answer means for the message. */
function afterSend(
  m: ClaimedMessage,
  outcome: DeliveryOutcome,
  now: Date,
  retryDelays: readonly number[],
): Ending {
  const reason = outcome.kind !== 'sent' ? outcome.reason : undefined;
  const smtp = {
    ...(outcome.smtpCode !== undefined && { smtpCode: outcome.smtpCode }),
    ...(outcome.kind !== 'sent' && outcome.enhancedCode && { enhancedCode: outcome.enhancedCode }),
    response: outcome.response,
    attempt: m.attempts + 1,
    ...(reason && { reason }),
  };
  const why = reason ? { reason } : {};
  switch (outcome.kind) {
    case 'sent':
      return end('sent', { isAttempt: true, eventDetails: smtp });
    case 'hard_fail':
      return outcome.isRecipientBounce
        ? end('bounced', {
            isAttempt: true,
            bounce: true,
            error: { code: 'hard_bounce', message: outcome.response, ...why },
            eventDetails: smtp,
          })
        : end('failed', {
            isAttempt: true,
            error: { code: 'rejected', message: outcome.response, ...why },
            eventDetails: smtp,
          });
    case 'soft_fail': {
      const next = nextAttemptAt(now, m.attempts + 1, m.expiresAt, outcome.retryAfterMs, retryDelays);
      return next
        ? end('deferred', {
            isAttempt: true,
            nextAttemptAt: next,
            error: { code: 'temporary_failure', message: outcome.response, ...why },
            eventDetails: { ...smtp, nextAttemptAt: next.toISOString() },
          })
        : end('expired', {
            isAttempt: true,
            error: { code: 'expired', message: `Retries ran out; last answer: ${outcome.response}`, ...why },
            eventDetails: smtp,
          });
    }
  }
}

/**
 * The From's display name: the one the send resolved (its fromName, else the environment's, else
 * the project's setting), else the project's display name, the name the footer signs with
 * ("Sent by …"), so the inbox shows who writes rather than a bare notifications@ address. A
 * project name the display-name rule would refuse in fromName (one holding an address) is left out.
 */
export function fromDisplayName(m: Pick<ClaimedMessage, 'fromName' | 'projectName'>): string | null {
  if (m.fromName) return m.fromName;
  return checkDisplayName(m.projectName) === null ? m.projectName : null;
}

/** What the steps of one attempt hand on to each other. */
interface Attempt {
  deps: DeliveryDeps;
  m: ClaimedMessage;
  now: Date;
  unsubscribe?: string | null;
  rendered?: ReturnType<typeof renderVersion>;
  raw?: Buffer;
  /** The verified custom domain whose return path is published, for the envelope sender. */
  verifiedDomain?: string;
}

/** A step either hands on to the next (undefined) or ends the attempt with what it records. */
type Step = (a: Attempt) => Ending | undefined | Promise<Ending | undefined>;

function checkExpiry({ m, now }: Attempt): Ending | undefined {
  if (m.expiresAt.getTime() > now.getTime()) return undefined;
  return end('expired', {
    error: { code: 'expired', message: 'The message expired before it could be sent.' },
  });
}

/** The recipient may have complained, unsubscribed or bounced since the accept (the claim's verdict). */
function recheckRecipient({ m }: Attempt): Ending | undefined {
  const refusal = m.recipientRefusal;
  if (!refusal) return undefined;
  return end('suppressed', {
    error: { code: refusal, message: 'The recipient became ineligible after the message was accepted.' },
    eventDetails: { reason: refusal },
  });
}

/** A bulk message whose job's data is gone (canceled while in flight) is never rendered from nothing. */
function checkBulkData({ m }: Attempt): Ending | undefined {
  if (!(m.contact && m.data === null)) return undefined;
  return end('failed', {
    error: { code: 'bulk_send_canceled', message: 'Its bulk send was canceled; nothing was sent.' },
  });
}

function render(a: Attempt): Ending | undefined {
  const { deps, m } = a;
  a.unsubscribe = m.category === 'notification' ? unsubscribeUrl(deps, m) : null;
  try {
    const { version } = getTemplate(m.templateId, m.templateVersion);
    const data = m.contact ? fillContactPlaceholders(version, m.data ?? {}, m.contact) : (m.data ?? {});
    a.rendered = renderVersion(version, data, {
      projectName: m.projectName,
      environmentName: m.environmentName,
      supportEmail: m.supportEmail,
      brandColor: m.brand.color,
      logoUrl: m.brand.logoUrl,
      postalAddress: m.brand.postalAddress,
      unsubscribeUrl: a.unsubscribe,
    });
    return undefined;
  } catch (err) {
    deps.log.error({ err, messageId: m.id }, 'render failed');
    return end('failed', {
      error: {
        code: 'render_failed',
        message: `Template ${m.templateId} ${m.templateVersion} could not be rendered.`,
      },
    });
  }
}

function buildMessage(a: Attempt): undefined {
  const { deps, m, now } = a;
  const rendered = a.rendered!;
  a.raw = buildMime({
    messageId: m.id,
    messageIdHeader: signedMessageIdHeader(deps.keys.verp, m.id, m.sendingDomain),
    from: { name: fromDisplayName(m), address: m.fromEmail },
    to: m.toEmail,
    replyTo: m.replyTo,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    date: now,
    unsubscribeUrl: a.unsubscribe ?? null,
  });
  return undefined;
}

/** A domain whose key cannot be used fails its messages rather than sending them unsigned. */
async function sign(a: Attempt): Promise<Ending | undefined> {
  const { deps, m } = a;
  try {
    const key = await deps.dkimKeyFor(m.tenantId, m.sendingDomain);
    if (key) {
      a.raw = await signMessageAsync(a.raw!, key);
      if (key.hasReturnPath) a.verifiedDomain = m.sendingDomain;
    }
    return undefined;
  } catch (err) {
    deps.log.error({ err, messageId: m.id, domain: m.sendingDomain }, 'DKIM signing failed');
    return end('failed', {
      error: { code: 'dkim_failed', message: `The DKIM key of ${m.sendingDomain} could not be used.` },
    });
  }
}

async function send(a: Attempt): Promise<Ending> {
  const { deps, m } = a;
  const sendStarted = performance.now();
  const outcome = await deps.transport.send({
    messageId: m.id,
    envelope: { from: bounceAddress(deps, m.id, a.verifiedDomain), to: m.toEmail },
    raw: a.raw!,
    priority: m.priority,
    meta: {
      templateId: m.templateId,
      subject: a.rendered!.subject,
      tenantId: m.tenantId,
      projectId: m.projectId,
      environmentId: m.environmentId,
      projectName: m.projectName,
      ...(m.tenantName && { tenantName: m.tenantName }),
    },
  });
  deps.metrics.smtpSeconds.observe({ result: outcome.kind }, (performance.now() - sendStarted) / 1000);
  return afterSend(m, outcome, deps.clock.now(), deps.config.MAILSVC_RETRY_DELAYS);
}

/** One attempt, in order (Postal's OutgoingMessageProcessor); the send step ends every attempt. */
const STEPS: readonly (readonly [string, Step])[] = [
  ['check expiry', checkExpiry],
  ['re-check recipient', recheckRecipient],
  ['check bulk data', checkBulkData],
  ['render', render],
  ['build MIME', buildMessage],
  ['sign', sign],
  ['send', send],
];

/**
 * An unexpected throw (a bug, not an answer of the relay): recorded as an `error` event on the
 * message with the step it came from, and the message deferred with the retry schedule's backoff
 * (or expired when that falls after its expiry) instead of waiting out its lease. The caller logs
 * the error itself (its stack is for the operator, not the timeline).
 */
function failedUnexpectedly(
  m: ClaimedMessage,
  step: string,
  now: Date,
  retryDelays: readonly number[],
): Ending {
  const next = nextAttemptAt(now, m.attempts + 1, m.expiresAt, undefined, retryDelays);
  const details = {
    reason: `internal error in the ${step} step`,
    attempt: m.attempts + 1,
    ...(next && { nextAttemptAt: next.toISOString() }),
  };
  const message = `An internal error interrupted the attempt (${step}); it is retried.`;
  return next
    ? end('deferred', {
        isAttempt: true,
        nextAttemptAt: next,
        error: { code: 'internal_error', message },
        eventType: 'error',
        eventDetails: details,
      })
    : end('expired', {
        isAttempt: true,
        error: { code: 'expired', message: `Retries ran out; last error: ${message}` },
        eventType: 'error',
        eventDetails: details,
      });
}

async function attempt(deps: DeliveryDeps, m: ClaimedMessage, now: Date): Promise<Ending> {
  const a: Attempt = { deps, m, now };
  for (const [name, step] of STEPS) {
    let ending: Ending | undefined;
    try {
      ending = await step(a);
    } catch (err) {
      deps.log.error({ err, messageId: m.id, step: name }, 'delivery step failed unexpectedly');
      return failedUnexpectedly(m, name, deps.clock.now(), deps.config.MAILSVC_RETRY_DELAYS);
    }
    if (ending) return ending;
  }
  throw new Error('the send step ends every attempt');
}

/** Records what ended an attempt; returns the recorded status. */
async function recordEnding(
  deps: DeliveryDeps,
  m: ClaimedMessage,
  ending: Ending,
): Promise<AttemptRecord['status']> {
  const now = deps.clock.now();
  deps.metrics.deliveries.inc({ category: m.category, status: ending.status });
  const { eventDetails, eventType, ...fields } = ending;
  const recorded = await deps.record({
    ...fields,
    messageId: m.id,
    claimToken: m.claimToken,
    event: { id: newId('evt', now.getTime()), details: eventDetails, ...(eventType && { type: eventType }) },
    now,
  });
  const log = { messageId: m.id, to: maskEmail(m.toEmail), status: ending.status, attempt: m.attempts + 1 };
  if (!recorded)
    deps.log.warn(log, 'lease lost before the outcome was recorded; another worker owns the message');
  else if (ending.status === 'sent' || ending.status === 'deferred')
    deps.log.info(log, `message ${ending.status}`);
  else deps.log.warn({ ...log, error: ending.error?.code }, `message ${ending.status}`);
  return ending.status;
}

/** Attempts one message and records the outcome; returns the recorded status. */
export async function deliverMessage(
  deps: DeliveryDeps,
  m: ClaimedMessage,
): Promise<AttemptRecord['status']> {
  return recordEnding(deps, m, await attempt(deps, m, deps.clock.now()));
}
