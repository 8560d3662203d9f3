// When a scheduled send may be due (DESIGN.md §12), the one home of the rule: POST /v1/send, each
// batch item and POST /v1/messages/reschedule check scheduledAt here. It must be in the future and
// at most SCHEDULE_MAX_DAYS after the message was accepted; a security template's mail expires
// an hour after it was accepted (a login code is useless later), so it may only be scheduled within
// that hour, at most 59 minutes after acceptance. A scheduled message of another category is attempted for its category's window from
// when it falls due.
import { SCHEDULE_MAX_DAYS } from '@mailsvc/contract/api';
import type { TemplateCategory } from '../../db/schema.js';
import { futureTime, timeFieldError } from '../time-fields.js';
import { EXPIRY_MS } from './message-policy.js';

const DAY_MS = 86_400_000;
/**
 * The latest a security template's mail may be due: a minute before it expires, so a worker has
 * time to take it (one falling due as it expires would only ever be marked expired).
 */
const SECURITY_LATEST_MS = EXPIRY_MS.security - 60_000;

/**
 * The due time asked for, checked: 400 invalid_request at `path` with the reason otherwise.
 * `acceptedAt` is the message's acceptance (now, for a send).
 */
export function checkScheduledAt(
  text: string,
  category: TemplateCategory,
  acceptedAt: Date,
  now: Date,
  path: string,
): Date {
  const refuse = (why: string) => timeFieldError('scheduledAt', path, why);
  const at = futureTime(text, now, 'scheduledAt', path);
  if (category === 'security' && at.getTime() > acceptedAt.getTime() + SECURITY_LATEST_MS) {
    throw refuse(
      'must be at most 59 minutes after acceptance for a security template: its mail expires an hour after it is accepted',
    );
  }
  if (at.getTime() > acceptedAt.getTime() + SCHEDULE_MAX_DAYS * DAY_MS) {
    throw refuse(`must be at most ${SCHEDULE_MAX_DAYS} days after the send was accepted`);
  }
  return at;
}

/** Until when delivery is attempted: from acceptance for security mail, else from when it is due. */
export function expiryOf(category: TemplateCategory, acceptedAt: Date, scheduledAt: Date | null): Date {
  const from = category === 'security' || scheduledAt === null ? acceptedAt : scheduledAt;
  return new Date(from.getTime() + EXPIRY_MS[category]);
}
