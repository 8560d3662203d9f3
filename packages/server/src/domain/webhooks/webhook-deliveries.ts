// POST /v1/webhooks/deliveries/list, /replay and /v1/webhooks/test (DESIGN.md §11): the attempt
// log of the environment's endpoints, a page at a time (the lists' signed cursor, bound to the
// environment and the filters), events sent again with their own webhook-id, and a test event.
import {
  type ListWebhookDeliveriesRequest,
  type ListWebhookDeliveriesResponse,
  type ReplayWebhookDeliveriesRequest,
  WEBHOOK_ATTEMPT_PAGE_SIZE_DEFAULT,
  WEBHOOK_ATTEMPT_PAGE_SIZE_MAX,
  WEBHOOK_REPLAY_MAX,
  type WebhookAttempt,
} from '@mailsvc/contract/api';
import { webhookReplayableFrom } from '../../db/repositories/retention.js';
import {
  hasWebhookEvent,
  listAttemptsPage,
  queueWebhookEvents,
  replayDeliveries,
} from '../../db/repositories/webhook-queue.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError } from '../../errors.js';
import { newId, ULID_PATTERN } from '../../ids.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { idTimeBounds, upperId } from '../lists/id-time-bounds.js';
import { cursorPosition, signCursor } from '../lists/signed-cursor.js';
import { listTimeBound } from '../time-fields.js';
import { findOwnEndpoint } from './webhook-endpoint.js';

const ATTEMPT_ID = new RegExp(`^wha_${ULID_PATTERN}$`);

export async function listWebhookDeliveries(
  deps: Deps,
  auth: AuthContext,
  input: ListWebhookDeliveriesRequest,
): Promise<Omit<ListWebhookDeliveriesResponse, 'ok'>> {
  const { fromId, endId } = idTimeBounds('wha', input);
  const filters = {
    endpointId: input.endpointId,
    eventType: input.eventType,
    eventId: input.eventId,
    messageId: input.messageId,
    outcome: input.outcome,
  };
  const binding = {
    list: 'webhook-attempts',
    environmentId: auth.environmentId,
    filters: JSON.stringify([filters, fromId ?? null, endId ?? null]),
  };
  const now = deps.clock.now();
  const beforeId = cursorPosition(deps.keys.listCursor, binding, input.cursor, now, ATTEMPT_ID);
  const belowId = upperId(beforeId, endId);
  const pageSize = Math.min(
    input.pageSize ?? WEBHOOK_ATTEMPT_PAGE_SIZE_DEFAULT,
    WEBHOOK_ATTEMPT_PAGE_SIZE_MAX,
  );
  const rows = await listAttemptsPage(deps.db, auth.environmentId, {
    ...filters,
    ...(fromId !== undefined && { fromId }),
    ...(belowId !== undefined && { belowId }),
    limit: pageSize + 1,
  });
  const page = rows.slice(0, pageSize);
  return {
    attempts: page.map(
      (r): WebhookAttempt => ({
        attemptId: r.id,
        endpointId: r.endpoint_id,
        eventId: r.event_id,
        eventType: r.event_type as WebhookAttempt['eventType'],
        attempt: r.attempt,
        outcome: r.outcome,
        statusCode: r.status_code,
        responseBody: r.response_body,
        latencyMs: r.latency_ms,
        error: r.error,
        nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
        createdAt: r.created_at.toISOString(),
      }),
    ),
    nextCursor:
      rows.length > pageSize ? signCursor(deps.keys.listCursor, binding, page.at(-1)!.id, now) : null,
  };
}

export async function replayWebhookDeliveries(
  deps: Deps,
  auth: AuthContext,
  input: ReplayWebhookDeliveriesRequest,
): Promise<{ queued: number }> {
  if (input.eventId === undefined && input.endpointId === undefined)
    throw new ApiError('invalid_request', 'Name an event (eventId) or an endpoint (endpointId) to replay.', [
      { path: '/eventId', message: 'required unless endpointId is given' },
    ]);
  const after =
    input.createdAfter === undefined ? undefined : listTimeBound(input.createdAfter, '/createdAfter');
  const before =
    input.createdBefore === undefined ? undefined : listTimeBound(input.createdBefore, '/createdBefore');
  const now = deps.clock.now();
  if (input.endpointId !== undefined) await findOwnEndpoint(deps.db, auth, input.endpointId);
  if (input.eventId !== undefined && !(await hasWebhookEvent(deps.db, auth.environmentId, input.eventId)))
    throw new ApiError(
      'webhook_event_not_found',
      `No event ${input.eventId} was sent to this environment’s endpoints.`,
      [{ path: '/eventId', message: 'not found' }],
    );
  const queued = await replayDeliveries(
    deps.db,
    {
      environmentId: auth.environmentId,
      ...(input.eventId !== undefined && { eventId: input.eventId }),
      ...(input.endpointId !== undefined && { endpointId: input.endpointId }),
      ...(after && { after }),
      ...(before && { before }),
      oldest: webhookReplayableFrom(now, deps.config.MAILSVC_RETENTION_DAYS),
      limit: WEBHOOK_REPLAY_MAX,
    },
    now,
  );
  return { queued };
}

export async function testWebhook(
  deps: Deps,
  auth: AuthContext,
  endpointId: string,
): Promise<{ eventId: string }> {
  const now = deps.clock.now();
  const eventId = newId('evt', now.getTime());
  await inTransaction(deps.db, async (trx) => {
    const endpoint = await findOwnEndpoint(trx, auth, endpointId);
    await queueWebhookEvents(
      trx,
      [
        {
          id: eventId,
          tenantId: auth.tenantId,
          environmentId: auth.environmentId,
          type: 'webhook.test',
          data: {
            endpointId: endpoint.id,
            message: 'A test event from mailsvc: your endpoint received and verified it.',
            occurredAt: now.toISOString(),
          },
          createdAt: now,
        },
      ],
      endpoint.id,
    );
  });
  return { eventId };
}
