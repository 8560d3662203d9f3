// POST /v1/stats/daily (DESIGN.md §14's overview): the environment's mail per UTC day, oldest
// first with every day of the window, and the window's bounce and complaint rates beside the
// thresholds providers act at.
import {
  BOUNCE_RATE_LIMIT,
  COMPLAINT_RATE_LIMIT,
  type DailyStats,
  type GetDailyStatsRequest,
  type GetDailyStatsResponse,
} from '@mailsvc/contract/api';
import { countMessagesByDay, countUnsubscribesByDay } from '../../db/repositories/stats.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';

const DAY_MS = 86_400_000;

/** Which count a message's status adds to (scheduled, queued and in-flight ones only to accepted). */
const COLUMN_OF: Record<string, keyof DailyStats | undefined> = {
  sent: 'delivered',
  delivered: 'delivered',
  bounced: 'bounced',
  complained: 'complained',
  failed: 'failed',
  expired: 'failed',
  suppressed: 'failed',
};

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 1e6) / 1e6);

export async function getDailyStats(
  deps: Deps,
  auth: AuthContext,
  input: GetDailyStatsRequest,
): Promise<Omit<GetDailyStatsResponse, 'ok'>> {
  const days = input.days ?? 30;
  const today = Math.floor(deps.clock.now().getTime() / DAY_MS) * DAY_MS;
  const since = new Date(today - (days - 1) * DAY_MS);
  const byDay = new Map<string, DailyStats>();
  for (let i = 0; i < days; i++) {
    const date = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    byDay.set(date, {
      date,
      accepted: 0,
      delivered: 0,
      bounced: 0,
      complained: 0,
      failed: 0,
      unsubscribed: 0,
    });
  }
  const starts = Array.from({ length: days + 1 }, (_, i) => since.getTime() + i * DAY_MS);
  const [messages, unsubscribes] = await Promise.all([
    countMessagesByDay(deps.db, auth.environmentId, starts),
    countUnsubscribesByDay(deps.db, auth.environmentId, since),
  ]);
  for (const { dayStart, status, n } of messages) {
    const entry = byDay.get(new Date(dayStart).toISOString().slice(0, 10));
    if (!entry) continue;
    entry.accepted += n;
    const column = COLUMN_OF[status];
    if (column) (entry[column] as number) += n;
  }
  for (const { day, n } of unsubscribes) {
    const entry = byDay.get(day);
    if (entry) entry.unsubscribed += n;
  }
  const list = [...byDay.values()];
  const total = (k: keyof DailyStats) => list.reduce((sum, d) => sum + (d[k] as number), 0);
  const [delivered, bounced, complained] = [total('delivered'), total('bounced'), total('complained')];
  return {
    days: list,
    rates: {
      bounceRate: rate(bounced, delivered + bounced),
      complaintRate: rate(complained, delivered),
      bounceRateLimit: BOUNCE_RATE_LIMIT,
      complaintRateLimit: COMPLAINT_RATE_LIMIT,
    },
  };
}
