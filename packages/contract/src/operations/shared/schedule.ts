// When a scheduled send is due (DESIGN.md §12): the field of POST /v1/send, each batch item and
// POST /v1/messages/reschedule. Its limits (in the future, at most 30 days ahead, a security
// template at most 59 minutes ahead, within its 1-hour expiry) are checked by the server (domain/send/schedule.ts).
import { Type } from '@sinclair/typebox';

/** How far ahead a send may be scheduled. */
export const SCHEDULE_MAX_DAYS = 30;

export const ScheduledAt = Type.String({
  format: 'date-time',
  maxLength: 64,
  description: `RFC 3339 time with an offset, e.g. 2026-12-01T09:00:00Z: in the future and at most ${SCHEDULE_MAX_DAYS} days ahead (a security template: at most 59 minutes, within its 1-hour expiry). The message is \`scheduled\` until then.`,
});
