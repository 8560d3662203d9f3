// An environment's mail per UTC day (POST /v1/stats/daily): messages by accept day and status, from
// the range of messages_list_idx the window's ids span (ids are ULIDs of created_at), and the
// recipients who unsubscribed each day, from recipients_unsubscribed_idx.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { firstIdOf } from './messages.js';

export async function countMessagesByDay(db: Db, environmentId: string, since: Date) {
  const rows = await db
    .selectFrom('messages')
    .select([
      sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      'status',
      sql<number>`count(*)::int`.as('n'),
    ])
    .where('environment_id', '=', environmentId)
    .where('id', '>=', firstIdOf(since.getTime()))
    .groupBy(['day', 'status'])
    .execute();
  return rows.map((r) => ({ day: r.day, status: r.status, n: Number(r.n) }));
}

export async function countUnsubscribesByDay(db: Db, environmentId: string, since: Date) {
  const rows = await db
    .selectFrom('recipients')
    .select([
      sql<string>`to_char(unsubscribed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      sql<number>`count(*)::int`.as('n'),
    ])
    .where('environment_id', '=', environmentId)
    .where('unsubscribed_at', '>=', since)
    .groupBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, n: Number(r.n) }));
}
