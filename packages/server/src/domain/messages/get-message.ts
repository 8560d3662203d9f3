// POST /v1/messages/get (extension, DESIGN.md §5): one message of the key's environment — its
// metadata and its event timeline, never content. Another environment's message is not found.
import type { GetMessageRequest, GetMessageResponse, MessageEvent } from '@mailsvc/contract/api';
import { listMessageEvents } from '../../db/repositories/messages.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail } from '../email.js';
import { findOwnMessage } from './find-own-message.js';
import { toMessageEvent } from './message-event.js';
import { toMessageSummary } from './message-summary.js';

export async function getMessage(
  deps: Deps,
  auth: AuthContext,
  input: GetMessageRequest,
): Promise<Omit<GetMessageResponse, 'ok'>> {
  const row = await findOwnMessage(deps, auth, input.messageId);
  const events = await listMessageEvents(deps.db, row.tenant_id, row.id);
  return {
    message: {
      ...toMessageSummary(row),
      emailMasked: maskEmail(row.to_email),
      category: row.category,
      attempts: row.attempts,
      expiresAt: row.expires_at.toISOString(),
    },
    events: [
      // A bulk send's messages have no accepted event of their own: the job row records it.
      ...(row.bulk_job_id !== null && !events.some((e) => e.type === 'accepted')
        ? [{ type: 'accepted' as const, at: row.created_at.toISOString() }]
        : []),
      ...events.map(toMessageEvent).filter((e): e is MessageEvent => e !== null),
    ],
  };
}
