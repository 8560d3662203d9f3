// POST /v1/events/ses (extension, DESIGN.md §5): Amazon SES notifications through SNS. The SNS
// signature proves Amazon sent the message (certificates only from sns.<region>.amazonaws.com,
// inbound/sns.ts); the topic, registered by an operator for one environment, proves whose it is.
// A SubscriptionConfirmation is confirmed only for a registered topic and only on an SNS host.
import { findSesTopic, hasSeenEvent, markEventSeen } from '../../db/repositories/event-intake.js';
import { ApiError } from '../../errors.js';
import { sesFeedback } from '../../inbound/ses.js';
import {
  type CertificateFetcher,
  fetchCertificate,
  isTrustedSnsSubscribeUrl,
  SnsVerificationError,
  verifySnsMessage,
} from '../../inbound/sns.js';
import type { Deps } from '../deps.js';
import { applyFeedbackReport } from './apply-report.js';
import { REPLAY_WINDOW_MS, summariseOutcomes } from './ingest-relay-event.js';

/** Amazon SNS, as the SES intake reaches it: replaced in tests by a local certificate. */
export interface SnsClient {
  fetchCertificate: CertificateFetcher;
  /** Visits a SubscribeURL (already checked to be on an SNS host). */
  confirmSubscription(url: URL): Promise<void>;
  certificates: Map<string, string>;
}

export function defaultSnsClient(): SnsClient {
  return {
    fetchCertificate,
    async confirmSubscription(url) {
      const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
      await res.body?.cancel().catch(() => {});
      if (!res.ok) throw new Error(`SubscribeURL answered HTTP ${res.status}`);
    },
    certificates: new Map(),
  };
}

export type SesOutcome = 'applied' | 'duplicate' | 'ignored' | 'replayed' | 'unknown_message' | 'subscribed';

export async function ingestSesEvent(
  deps: Pick<Deps, 'db' | 'clock' | 'log' | 'sns'>,
  body: unknown,
  rawBody: string,
): Promise<{ outcome: SesOutcome }> {
  let message: Awaited<ReturnType<typeof verifySnsMessage>>;
  try {
    message = await verifySnsMessage(body, deps.sns.fetchCertificate, { cache: deps.sns.certificates });
  } catch (err) {
    if (!(err instanceof SnsVerificationError)) throw err;
    if (err.reason === 'certificate-unavailable') {
      deps.log.warn({ err }, 'SNS signing certificate could not be fetched');
      throw new ApiError(
        'service_unavailable',
        'The SNS signing certificate could not be fetched; retry later.',
        undefined,
        {
          'Retry-After': '30',
        },
      );
    }
    throw new ApiError('invalid_signature', `The SNS message does not verify (${err.reason}).`);
  }
  const topic = await findSesTopic(deps.db, message.TopicArn);
  if (!topic) {
    throw new ApiError(
      'sns_topic_not_registered',
      'No environment registered this SNS topic: mailsvc admin events add-ses-topic --environment ENV --topic-arn ARN.',
    );
  }
  if (message.Type === 'SubscriptionConfirmation') {
    const url = isTrustedSnsSubscribeUrl(message.SubscribeURL);
    if (!url) throw new ApiError('invalid_signature', 'The SubscribeURL is not on an SNS host.');
    try {
      await deps.sns.confirmSubscription(url);
    } catch (err) {
      deps.log.warn({ err, topicArn: message.TopicArn }, 'SNS subscription could not be confirmed');
      throw new ApiError(
        'service_unavailable',
        'The SNS subscription could not be confirmed; SNS will retry.',
        undefined,
        {
          'Retry-After': '30',
        },
      );
    }
    deps.log.info(
      { topicArn: message.TopicArn, environmentId: topic.environmentId },
      'SNS subscription confirmed',
    );
    return { outcome: 'subscribed' };
  }
  if (message.Type !== 'Notification') return { outcome: 'ignored' };
  const eventId = `sns:${message.MessageId}`;
  if (await hasSeenEvent(deps.db, topic.environmentId, eventId)) return { outcome: 'replayed' };
  const feedback = sesFeedback(message.Message);
  let outcome: SesOutcome = 'ignored';
  if (feedback && feedback.items.length > 0) {
    outcome = summariseOutcomes(
      await applyFeedbackReport(
        deps,
        { type: 'ses', items: feedback.items, ref: feedback.ref },
        { source: 'ses', raw: Buffer.from(rawBody), environmentId: topic.environmentId },
      ),
    );
  }
  await markEventSeen(
    deps.db,
    topic.environmentId,
    eventId,
    new Date(deps.clock.now().getTime() + REPLAY_WINDOW_MS),
  );
  return { outcome };
}
