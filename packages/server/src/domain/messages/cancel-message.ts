// POST /v1/messages/cancel (DESIGN.md §12): a scheduled or queued message of the key's environment
// that no worker has claimed becomes `canceled` and is never sent; anything else is 409
// message_not_cancelable naming its status. The race with a claiming worker is settled in the one
// statement (db/repositories/message-schedule.ts). The quota keeps counting the message.
import type { CancelMessageRequest, MessageSummary } from '@mailsvc/contract/api';
import { cancelPendingMessage } from '../../db/repositories/message-schedule.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { findOwnMessage } from './find-own-message.js';
import { toMessageSummary } from './message-summary.js';

export async function cancelMessage(
  deps: Deps,
  auth: AuthContext,
  input: CancelMessageRequest,
): Promise<{ message: MessageSummary }> {
  const canceled = await cancelPendingMessage(deps.db, auth.environmentId, input.messageId, deps.clock.now());
  // read after the change (404 for an id not of the environment): the message as it is now
  const row = await findOwnMessage(deps, auth, input.messageId);
  if (!canceled) {
    throw new ApiError(
      'message_not_cancelable',
      `The message is ${row.status}: only a scheduled or queued message can be canceled.`,
      [{ path: '/messageId', message: `status is ${row.status}` }],
    );
  }
  return { message: toMessageSummary(row) };
}
