// Message metadata for lookups (never data, subject or body).
import type { Db } from '../schema.js';

const SUMMARY = [
  'id',
  'template_id',
  'template_version',
  'status',
  'created_at',
  'updated_at',
  'sent_at',
  'delivered_at',
  'bulk_job_id',
  'last_error',
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
