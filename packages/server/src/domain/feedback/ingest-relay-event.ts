// POST /v1/events/intake (extension, DESIGN.md §5): a relay's delivery, bounce or complaint event,
// signed per Standard Webhooks with a secret of the environment it names. The signature is
// checked over the raw body before anything else is read from it; a webhook-id seen before is
// ignored; the event changes only a message of that environment.
import { operations, type RelayEventRequest } from '@mailsvc/contract/api';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { hasSeenEvent, listLiveIntakeSecrets, markEventSeen } from '../../db/repositories/event-intake.js';
import { ApiError } from '../../errors.js';
import { ULID_PATTERN } from '../../ids.js';
import type { Deps } from '../deps.js';
import { readFailure } from '../failures/classify-failure.js';
import { applyFeedbackReport, type ReportOutcome } from './apply-report.js';
import type { FeedbackItem, FeedbackReport } from './types.js';

/** How long a webhook-id (or an SNS MessageId) is remembered: well past the 5-minute tolerance. */
export const REPLAY_WINDOW_MS = 24 * 3_600_000;

const ENVIRONMENT_ID = new RegExp(`^env_${ULID_PATTERN}$`);

export interface VerifiedEvent {
  environmentId: string;
  /** The webhook-id header: the event's identity for replays. */
  eventId: string;
}

function refused(message: string): ApiError {
  return new ApiError('invalid_signature', message);
}

/**
 * The environment is named in the body (it selects the secrets); nothing else is trusted until
 * one of its live secrets verifies the signature over the exact bytes received, within
 * standardwebhooks' 5-minute timestamp tolerance.
 */
export async function verifyRelayEvent(
  deps: Pick<Deps, 'db' | 'clock'>,
  rawBody: string,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
): Promise<VerifiedEvent> {
  const environmentId = (body as { environmentId?: unknown } | null)?.environmentId;
  if (typeof environmentId !== 'string' || !ENVIRONMENT_ID.test(environmentId))
    throw refused('Name the environment whose intake secret signed the event in environmentId (env_…).');
  const one = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  const signed = {
    'webhook-id': one('webhook-id') ?? '',
    'webhook-timestamp': one('webhook-timestamp') ?? '',
    'webhook-signature': one('webhook-signature') ?? '',
  };
  if (!signed['webhook-id'] || !signed['webhook-timestamp'] || !signed['webhook-signature'])
    throw refused(
      'Sign the event: webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks).',
    );
  if (signed['webhook-id'].length > 256) throw refused('webhook-id is over 256 characters.');
  const secrets = await listLiveIntakeSecrets(deps.db, environmentId, deps.clock.now());
  let reason = 'The signature matches no intake secret of this environment.';
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(rawBody, signed, { jsonParse: false });
      return { environmentId, eventId: signed['webhook-id'] };
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      if (/timestamp/i.test(err.message))
        reason =
          'webhook-timestamp is not within 5 minutes of the server’s time: refused as a possible replay.';
      else if (/headers/i.test(err.message)) reason = 'webhook-timestamp is not a number of seconds.';
    }
  }
  throw refused(reason);
}

/** The most telling of several outcomes, for the answer. */
export function summariseOutcomes(
  outcomes: ReportOutcome[],
): 'applied' | 'duplicate' | 'ignored' | 'unknown_message' {
  if (outcomes.some((o) => o.result === 'applied')) return 'applied';
  if (outcomes.some((o) => o.result === 'duplicate')) return 'duplicate';
  if (outcomes.some((o) => o.result === 'no_message')) return 'unknown_message';
  return 'ignored';
}

function findingOf(body: RelayEventRequest): FeedbackItem | null {
  const recipient = body.recipient?.trim().toLowerCase();
  const base = recipient ? { recipient } : {};
  if (body.type === 'delivered') return { kind: 'delivered', hard: false, ...base };
  if (body.type === 'complained') return { kind: 'complained', hard: false, ...base };
  const bounce = body.bounce!;
  // A transient bounce is the relay still trying (or having given up on something temporary):
  // no failure of the message, nothing against the recipient.
  if (bounce.type === 'transient') return null;
  return {
    kind: 'failed',
    // The shared conservative rule: only a mailbox-missing status counts against the recipient.
    ...readFailure({
      source: 'report',
      permanent: true,
      status: bounce.status,
      text: bounce.diagnostic,
    }),
    ...base,
    ...(bounce.status && { status: bounce.status }),
    ...(bounce.diagnostic && { diagnostic: bounce.diagnostic.replace(/\s+/g, ' ').trim().slice(0, 500) }),
  };
}

export async function ingestRelayEvent(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  event: VerifiedEvent,
  body: RelayEventRequest,
  rawBody: string,
): Promise<{ outcome: 'applied' | 'duplicate' | 'ignored' | 'replayed' | 'unknown_message' }> {
  const problems = [];
  if (body.messageId === undefined && body.messageIdHeader === undefined)
    problems.push({ path: '/messageId', message: 'give messageId or messageIdHeader' });
  if (body.type === 'bounced' && body.bounce === undefined)
    problems.push({ path: '/bounce', message: 'a bounced event needs bounce: {type, status?, diagnostic?}' });
  if (problems.length > 0)
    throw new ApiError('invalid_request', operations.ingestRelayEvent.invalidRequestMessage, problems);
  if (await hasSeenEvent(deps.db, event.environmentId, event.eventId)) return { outcome: 'replayed' };
  const finding = findingOf(body);
  let outcome: 'applied' | 'duplicate' | 'ignored' | 'unknown_message' = 'ignored';
  if (finding) {
    const report: FeedbackReport = {
      type: 'relay-event',
      items: [finding],
      ref: {
        ...(body.messageId && { mailsvcMessageId: body.messageId.trim() }),
        ...(body.messageIdHeader && { messageIdHeader: body.messageIdHeader.trim().replace(/^<|>$/g, '') }),
      },
    };
    outcome = summariseOutcomes(
      await applyFeedbackReport(deps, report, {
        source: 'intake',
        raw: Buffer.from(rawBody),
        environmentId: event.environmentId,
      }),
    );
  }
  await markEventSeen(
    deps.db,
    event.environmentId,
    event.eventId,
    new Date(deps.clock.now().getTime() + REPLAY_WINDOW_MS),
  );
  return { outcome };
}
