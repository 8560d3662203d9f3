// Message metadata for lookups (never data, subject or body).
import { encodeUlid, ulidTime } from '@mailsvc/contract/http';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../schema.js';

const SUMMARY = [
  'id',
  'template_id',
  'template_version',
  'status',
  'created_at',
  'updated_at',
  'scheduled_at',
  'sent_at',
  'delivered_at',
  'bulk_job_id',
  'last_error',
  'metadata',
] as const;

/** An address's most recent messages in one environment, newest first. */
export async function listRecentMessages(db: Db, environmentId: string, email: string, limit: number) {
  return db
    .selectFrom('messages')
    .select(SUMMARY)
    .where('environment_id', '=', environmentId)
    .where('to_email', '=', email)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** One message of an environment (another environment's is undefined, as a missing one). */
export async function findMessage(db: Db, environmentId: string, messageId: string) {
  return db
    .selectFrom('messages')
    .select([...SUMMARY, 'category', 'to_email', 'attempts', 'expires_at', 'tenant_id'])
    .where('id', '=', messageId)
    .where('environment_id', '=', environmentId)
    .executeTakeFirst();
}

/** A message's events, oldest first. */
export async function listMessageEvents(db: Db, tenantId: string, messageId: string) {
  return db
    .selectFrom('message_events')
    .select(['type', 'details', 'created_at'])
    .where('message_id', '=', messageId)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export type MessageSummaryRow = Awaited<ReturnType<typeof listRecentMessages>>[number];

/** The filters of POST /v1/messages/list, checked and normalised; all of them must hold. */
export interface MessageListFilter {
  statuses?: readonly string[];
  templateId?: string;
  /** Normalised as stored (lowercase, punycode). */
  toEmail?: string;
  /** Whole milliseconds (a finer instant rounded up). */
  createdAfter?: Date;
  createdBefore?: Date;
  /** Key = value pairs, all of which the message's metadata must have. */
  metadata?: readonly (readonly [string, string])[];
  bulkJobId?: string;
}

type ListedRow = MessageSummaryRow & { to_email: string };

const ZEROS = new Uint8Array(16);
/** The smallest message id of a millisecond: ids are ULIDs whose time is the message's created_at. */
export const firstIdOf = (ms: number) => `msg_${encodeUlid(Math.max(0, ms), ZEROS)}`;

/**
 * A page of an environment's messages, newest first (id descending: ids are ULIDs of created_at),
 * after the message `beforeId` when given. Each filter has an index whose range holds its messages
 * newest first (0011_message_list.sql), so a page reads about `limit` index entries whatever the
 * table's size: the most selective filter given drives (bulk job, then a metadata pair — the
 * rarest of several —, then the recipient, the template, the statuses) and the others are checked
 * on the rows it yields; several statuses are one walk per status, merged. No condition is stated
 * twice (a time range is only an id range, the driving pair is not checked again on the message):
 * the planner multiplies the selectivities of conditions it takes as independent, and expecting
 * a few rows it would read the whole range and sort it, or start parallel workers, for a page.
 */
export async function listMessagePage(
  db: Db,
  environmentId: string,
  f: MessageListFilter,
  beforeId: string | undefined,
  limit: number,
): Promise<ListedRow[]> {
  const ids = idRange(f, beforeId);
  const pairs = await rarestFirst(db, environmentId, f.metadata ?? []);
  const byPair = f.bulkJobId === undefined && pairs.length > 0;
  const conds = pageConditions(environmentId, f, ids, pairs, byPair);
  const columns = sql.join(
    [...SUMMARY, 'to_email'].map((c) => sql.ref(`m.${c}`)),
    sql`, `,
  );
  const where = (extra: RawBuilder<unknown>[] = []) => sql.join([...conds, ...extra], sql` AND `);
  const statuses = f.statuses ?? [];
  const statusCond = statuses.length > 0 ? [sql`m.status IN (${sql.join([...statuses])})`] : [];

  let query: RawBuilder<ListedRow>;
  if (byPair) {
    // The driving pair's rows in message_metadata, newest first (its key's order).
    const [key, value] = pairs[0]!;
    const mm = [
      sql`mm.environment_id = ${environmentId}`,
      sql`mm.key = ${key}`,
      sql`mm.value = ${value}`,
      // the id range again, on the walked index (the planner does not carry it over the join)
      ...idConditions('mm.message_id', ids),
    ];
    query = sql`
      SELECT ${columns} FROM message_metadata mm JOIN messages m ON m.id = mm.message_id
       WHERE ${sql.join([...mm, ...conds, ...statusCond], sql` AND `)}
       ORDER BY mm.message_id DESC LIMIT ${limit}`;
  } else if (f.bulkJobId === undefined && f.toEmail !== undefined) {
    query = sql`
      SELECT ${columns} FROM messages m WHERE ${where(statusCond)}
       ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}`;
  } else if (f.bulkJobId === undefined && f.templateId === undefined && statuses.length > 1) {
    // One walk of messages_list_status_idx per status, merged by id.
    const walks = statuses.map(
      (status) => sql`(SELECT ${columns} FROM messages m WHERE ${where([sql`m.status = ${status}`])}
                        ORDER BY m.id DESC LIMIT ${limit})`,
    );
    query = sql`SELECT * FROM (${sql.join(walks, sql` UNION ALL `)}) page ORDER BY id DESC LIMIT ${limit}`;
  } else {
    query = sql`
      SELECT ${columns} FROM messages m WHERE ${where(statusCond)}
       ORDER BY m.id DESC LIMIT ${limit}`;
  }
  return (await query.execute(db)).rows;
}

/** The conditions every row of the page meets, but the driving metadata pair's (see listMessagePage). */
function pageConditions(
  environmentId: string,
  f: MessageListFilter,
  ids: { from?: string; below?: string },
  pairs: readonly (readonly [string, string])[],
  byPair: boolean,
): RawBuilder<unknown>[] {
  return [
    // The environment, stated once where it is known: a bulk job's messages are all of the job's
    // environment (the job is looked up in this one), and a message's metadata pairs carry its
    // environment (they are written with the message, from the same value: accept_messages.sql,
    // db/repositories/bulk.ts), so the walk of this environment's pairs finds this environment's messages only.
    ...(f.bulkJobId !== undefined
      ? [
          sql`m.bulk_job_id = (SELECT j.id FROM bulk_jobs j WHERE j.id = ${f.bulkJobId} AND j.environment_id = ${environmentId})`,
        ]
      : byPair
        ? []
        : [sql`m.environment_id = ${environmentId}`]),
    ...idConditions('m.id', ids),
    ...(f.templateId !== undefined ? [sql`m.template_id = ${f.templateId}`] : []),
    ...(f.toEmail !== undefined ? [sql`m.to_email = ${f.toEmail}`] : []),
    // messages_recipient_idx is by created_at: bound the walk by it too, at both ends (a recipient's
    // messages are few, so the planner's estimate does not matter here).
    ...(f.toEmail !== undefined && ids.below !== undefined
      ? [sql`m.created_at < ${timeOfId(ids.below)}::timestamptz + interval '1 millisecond'`]
      : []),
    ...(f.toEmail !== undefined && f.createdAfter !== undefined
      ? [sql`m.created_at >= ${f.createdAfter}`]
      : []),
    // the other pairs than the one that drives: a probe each of message_metadata's key
    ...(f.bulkJobId !== undefined ? pairs : pairs.slice(1)).map(
      ([key, value]) => sql`EXISTS (SELECT 1 FROM message_metadata p WHERE p.environment_id = ${environmentId}
                              AND p.key = ${key} AND p.value = ${value} AND p.message_id = m.id)`,
    ),
  ];
}

/** A column's bounds from an id range. */
const idConditions = (col: string, ids: { from?: string; below?: string }) => [
  ...(ids.below !== undefined ? [sql`${sql.ref(col)} < ${ids.below}`] : []),
  ...(ids.from !== undefined ? [sql`${sql.ref(col)} >= ${ids.from}`] : []),
];

/**
 * The ids a page may hold: below the cursor and the time range's end, from its start. A message's
 * id holds the millisecond of its created_at (every insert makes both from one clock reading:
 * domain/send/send-email.ts, db/repositories/bulk.ts), and created_at has no finer part, so
 * created_at ≥ T is id ≥ the first id of T's millisecond (createdAfter and createdBefore arrive in
 * whole milliseconds, rounded up: domain/messages/list-messages.ts).
 */
function idRange(f: MessageListFilter, beforeId: string | undefined): { from?: string; below?: string } {
  const end = f.createdBefore && firstIdOf(f.createdBefore.getTime());
  const below =
    beforeId !== undefined && end !== undefined ? (beforeId < end ? beforeId : end) : (beforeId ?? end);
  return {
    ...(f.createdAfter && { from: firstIdOf(f.createdAfter.getTime()) }),
    ...(below !== undefined && { below }),
  };
}

/** How far the pairs' messages are counted to choose the one that drives the list. */
const PAIR_COUNT_BOUND = 200;

/**
 * Several metadata pairs: the one with the fewest messages first (counted up to a bound on the
 * index, one round trip), since the list walks the first pair's messages and checks the others
 * on each: a common pair with a rare one would walk the common pair's.
 */
async function rarestFirst(
  db: Db,
  environmentId: string,
  pairs: readonly (readonly [string, string])[],
): Promise<readonly (readonly [string, string])[]> {
  if (pairs.length < 2) return pairs;
  const counts = pairs.map(
    ([key, value], i) => sql`SELECT ${i}::int AS i, (SELECT count(*)::int FROM (
        SELECT 1 FROM message_metadata
         WHERE environment_id = ${environmentId} AND key = ${key} AND value = ${value}
         LIMIT ${PAIR_COUNT_BOUND}) c) AS n`,
  );
  const { rows } = await sql<{ i: number; n: number }>`${sql.join(counts, sql` UNION ALL `)}`.execute(db);
  return [...rows].sort((a, b) => a.n - b.n || a.i - b.i).map((r) => pairs[r.i]!);
}

/** The created_at a message id stands for (its ULID's time). */
export const timeOfId = (id: string) => new Date(ulidTime(id.slice(4)));
