// One attempt at one claimed message, as named steps (claim happened in the worker):
// re-check the recipient → render → build MIME → sign → send → record. Each step either hands on
// to the next or ends the attempt with the status it records.
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
  dkimKeyFor(domain: string): Promise<DkimKey | null>;
  /** Records an attempt (queue.ts); false when the claim was lost to another worker. */
  record(r: AttemptRecord): Promise<boolean>;
}

type Ending = Omit<AttemptRecord, 'messageId' | 'claimToken' | 'now' | 'event'> & {
  eventDetails: Record<string, unknown>;
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
 * domain whose return path an operator marked published (`admin domains set-return-path`: MX of
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
  const smtp = {
    ...(outcome.smtpCode !== undefined && { smtpCode: outcome.smtpCode }),
    ...(outcome.kind !== 'sent' && outcome.enhancedCode && { enhancedCode: outcome.enhancedCode }),
    response: outcome.response,
    attempt: m.attempts + 1,
  };
  switch (outcome.kind) {
    case 'sent':
      return end('sent', { isAttempt: true, eventDetails: smtp });
    case 'hard_fail':
      return outcome.isRecipientBounce
        ? end('bounced', {
            isAttempt: true,
            bounce: true,
            error: { code: 'hard_bounce', message: outcome.response },
            eventDetails: smtp,
          })
        : end('failed', {
            isAttempt: true,
            error: { code: 'rejected', message: outcome.response },
            eventDetails: smtp,
          });
    case 'soft_fail': {
      const next = nextAttemptAt(now, m.attempts + 1, m.expiresAt, outcome.retryAfterMs, retryDelays);
      return next
        ? end('deferred', {
            isAttempt: true,
            nextAttemptAt: next,
            error: { code: 'temporary_failure', message: outcome.response },
            eventDetails: { ...smtp, nextAttemptAt: next.toISOString() },
          })
        : end('expired', {
            isAttempt: true,
            error: { code: 'expired', message: `Retries ran out; last answer: ${outcome.response}` },
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

async function attempt(deps: DeliveryDeps, m: ClaimedMessage, now: Date): Promise<Ending> {
  if (m.expiresAt.getTime() <= now.getTime()) {
    return end('expired', {
      error: { code: 'expired', message: 'The message expired before it could be sent.' },
    });
  }

  // re-check: the recipient may have complained, unsubscribed or bounced since the accept
  const refusal = m.recipientRefusal;
  if (refusal) {
    return end('suppressed', {
      error: { code: refusal, message: 'The recipient became ineligible after the message was accepted.' },
      eventDetails: { reason: refusal },
    });
  }

  // A bulk message whose job's data is gone (the job was canceled while it was in flight) is
  // never rendered from nothing.
  if (m.contact && m.data === null) {
    return end('failed', {
      error: { code: 'bulk_send_canceled', message: 'Its bulk send was canceled; nothing was sent.' },
    });
  }

  // render
  let rendered: ReturnType<typeof renderVersion>;
  const isNotification = m.category === 'notification';
  const unsubscribe = isNotification ? unsubscribeUrl(deps, m) : null;
  try {
    const { version } = getTemplate(m.templateId, m.templateVersion);
    const data = m.contact ? fillContactPlaceholders(version, m.data ?? {}, m.contact) : (m.data ?? {});
    rendered = renderVersion(version, data, {
      projectName: m.projectName,
      environmentName: m.environmentName,
      supportEmail: m.supportEmail,
      brandColor: m.brand.color,
      logoUrl: m.brand.logoUrl,
      postalAddress: m.brand.postalAddress,
      unsubscribeUrl: unsubscribe,
    });
  } catch (err) {
    deps.log.error({ err, messageId: m.id }, 'render failed');
    return end('failed', {
      error: {
        code: 'render_failed',
        message: `Template ${m.templateId} ${m.templateVersion} could not be rendered.`,
      },
    });
  }

  // build MIME
  let raw = buildMime({
    messageId: m.id,
    messageIdHeader: signedMessageIdHeader(deps.keys.verp, m.id, m.sendingDomain),
    from: { name: fromDisplayName(m), address: m.fromEmail },
    to: m.toEmail,
    replyTo: m.replyTo,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    date: now,
    unsubscribeUrl: unsubscribe,
  });

  // sign: a domain whose key cannot be used fails its messages rather than sending them unsigned
  let verifiedDomain: string | undefined;
  try {
    const key = await deps.dkimKeyFor(m.sendingDomain);
    if (key) {
      raw = await signMessageAsync(raw, key);
      if (key.hasReturnPath) verifiedDomain = m.sendingDomain;
    }
  } catch (err) {
    deps.log.error({ err, messageId: m.id, domain: m.sendingDomain }, 'DKIM signing failed');
    return end('failed', {
      error: { code: 'dkim_failed', message: `The DKIM key of ${m.sendingDomain} could not be used.` },
    });
  }

  // send
  const sendStarted = performance.now();
  const outcome = await deps.transport.send({
    messageId: m.id,
    envelope: { from: bounceAddress(deps, m.id, verifiedDomain), to: m.toEmail },
    raw,
    priority: m.priority,
    meta: {
      templateId: m.templateId,
      subject: rendered.subject,
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

/** Attempts one message and records the outcome; returns the recorded status. */
export async function deliverMessage(
  deps: DeliveryDeps,
  m: ClaimedMessage,
): Promise<AttemptRecord['status']> {
  const now = deps.clock.now();
  const ending = await attempt(deps, m, now);
  deps.metrics.deliveries.inc({ category: m.category, status: ending.status });
  const { eventDetails, ...fields } = ending;
  const recorded = await deps.record({
    ...fields,
    messageId: m.id,
    claimToken: m.claimToken,
    event: { id: newId('evt', now.getTime()), details: eventDetails },
    now: deps.clock.now(),
  });
  const log = { messageId: m.id, to: maskEmail(m.toEmail), status: ending.status, attempt: m.attempts + 1 };
  if (!recorded)
    deps.log.warn(log, 'lease lost before the outcome was recorded; another worker owns the message');
  else if (ending.status === 'sent' || ending.status === 'deferred')
    deps.log.info(log, `message ${ending.status}`);
  else deps.log.warn({ ...log, error: ending.error?.code }, `message ${ending.status}`);
  return ending.status;
}
