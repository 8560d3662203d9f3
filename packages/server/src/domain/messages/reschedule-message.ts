// POST /v1/messages/reschedule (DESIGN.md §12): a `scheduled` message of the key's environment gets
// a new due time, checked by the rule of scheduledAt on a send (domain/send/schedule.ts), counted
// from when the message was accepted; a message that fell due, went or was canceled is 409
// message_not_scheduled naming its status.
import type { MessageSummary, RescheduleMessageRequest } from '@mailsvc/contract/api';
import { rescheduleMessage as moveMessage } from '../../db/repositories/message-schedule.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { checkScheduledAt, expiryOf } from '../send/schedule.js';
import { findOwnMessage } from './find-own-message.js';
import { toMessageSummary } from './message-summary.js';

function notScheduled(status: string): ApiError {
  return new ApiError(
    'message_not_scheduled',
    `The message is ${status}: only a scheduled message can be rescheduled.`,
    [{ path: '/messageId', message: `status is ${status}` }],
  );
}

export async function rescheduleMessage(
  deps: Deps,
  auth: AuthContext,
  input: RescheduleMessageRequest,
): Promise<{ message: MessageSummary }> {
  const now = deps.clock.now();
  const before = await findOwnMessage(deps, auth, input.messageId);
  if (before.status !== 'scheduled') throw notScheduled(before.status);
  const at = checkScheduledAt(input.scheduledAt, before.category, before.created_at, now, '/scheduledAt');
  const moved = await moveMessage(
    deps.db,
    auth.environmentId,
    input.messageId,
    at,
    expiryOf(before.category, before.created_at, at),
    now,
  );
  const row = await findOwnMessage(deps, auth, input.messageId);
  if (!moved) throw notScheduled(row.status);
  return { message: toMessageSummary(row) };
}
