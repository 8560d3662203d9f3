// POST /v1/recipients/status (seed §4, DESIGN.md §5): a recipient's state in the key's
// environment and its recent messages, metadata only.
import type { RecipientStatusRequest, RecipientStatusResponse } from '@mailsvc/contract/api';
import { listRecentMessages } from '../../db/repositories/messages.js';
import { findRecipient } from '../../db/repositories/recipients.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { maskEmail, parseEmail } from '../email.js';
import { toMessageSummary } from '../messages/message-summary.js';
import { recipientStateName } from './eligibility.js';

export const STATUS_MESSAGES_DEFAULT = 10;
export const STATUS_MESSAGES_MAX = 50;

/** The seed clamps `limit` to 1–50 rather than refusing it; fractions round down. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined) return STATUS_MESSAGES_DEFAULT;
  return Math.min(STATUS_MESSAGES_MAX, Math.max(1, Math.floor(limit)));
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function getRecipientStatus(
  deps: Deps,
  auth: AuthContext,
  input: RecipientStatusRequest,
): Promise<Omit<RecipientStatusResponse, 'ok'>> {
  const parsed = parseEmail(input.email);
  if (!parsed.ok) {
    throw new ApiError(
      'invalid_request',
      'Invalid recipient status request: expected a valid recipient email.',
      [{ path: '/email', message: parsed.reason }],
    );
  }
  return recipientStatusOf(deps.db, auth.environmentId, parsed, deps.clock.now(), clampLimit(input.limit));
}

/** A normalised address's status in one environment (also the admin's `recipients show`). */
export async function recipientStatusOf(
  db: Db,
  environmentId: string,
  address: { address: string; domain: string },
  now: Date,
  limit: number,
): Promise<Omit<RecipientStatusResponse, 'ok'>> {
  const [row, messages] = await Promise.all([
    findRecipient(db, environmentId, address.address, now),
    listRecentMessages(db, environmentId, address.address, limit),
  ]);
  return {
    recipient: {
      emailMasked: maskEmail(address.address),
      recipientDomain: address.domain,
      state: recipientStateName(row),
      subscription: {
        scope: 'app_notifications',
        status: row?.isUnsubscribed ? 'unsubscribed' : 'subscribed',
        unsubscribedAt: iso(row?.unsubscribedAt ?? null),
        resubscribedAt: iso(row?.resubscribedAt ?? null),
      },
      delivery: {
        hardBounceCount: row?.hardBounceCount ?? 0,
        complaintCount: row?.complaintCount ?? 0,
        cooldownUntil: iso(row?.cooldownUntil ?? null),
        complainedAt: iso(row?.complainedAt ?? null),
      },
      canSendNotifications: row?.canSendNotifications ?? true,
    },
    messages: messages.map(toMessageSummary),
  };
}
