// POST /v1/send/batch's accept (DESIGN.md §12): every item that passed its checks in one call of
// accept_messages() — one statement, one transaction, one commit — and, with an Idempotency-Key,
// the key's record with the whole answer in the same transaction.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { inTransaction } from '../transaction.js';
import { type AcceptItem, type AcceptOutcome, acceptMessages } from './send.js';

export interface BatchClaim {
  tenantId: string;
  environmentId: string;
  period: string;
  key: string;
  requestSha256: Buffer;
  now: Date;
  expiresAt: Date;
}

export type BatchAcceptance =
  | { kind: 'accepted'; outcomes: AcceptOutcome[] }
  /** A live record holds the key (another request's, committed first): nothing was written. */
  | { kind: 'taken'; requestSha256: Buffer; response: Record<string, unknown> | null };

/**
 * Accepts the items; with a claim, first takes the tenant's counter lock and then the key (the
 * order accept_messages.sql and bulk sends take them in: no deadlock), so a concurrent request
 * with the same key waits here and then finds it taken; `answer` makes the answer stored with it.
 */
export async function acceptBatch(
  db: Db,
  items: readonly AcceptItem[],
  claim: BatchClaim | undefined,
  answer: (outcomes: AcceptOutcome[]) => Record<string, unknown>,
): Promise<BatchAcceptance> {
  if (!claim) return { kind: 'accepted', outcomes: items.length > 0 ? await acceptMessages(db, items) : [] };
  return inTransaction(db, async (trx): Promise<BatchAcceptance> => {
    await sql`SELECT reserve_usage(${claim.tenantId}, ${claim.environmentId}, ${claim.period}, 0, false)`.execute(
      trx,
    );
    const claimed = await sql`
      INSERT INTO idempotency_keys (environment_id, key, request_sha256, message_id, bulk_job_id,
                                    created_at, expires_at)
      VALUES (${claim.environmentId}, ${claim.key}, ${claim.requestSha256}, NULL, NULL, ${claim.now},
              ${claim.expiresAt})
      ON CONFLICT (environment_id, key) DO UPDATE
        SET request_sha256 = EXCLUDED.request_sha256, message_id = NULL, bulk_job_id = NULL,
            response = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at <= ${claim.now}
      RETURNING 1`.execute(trx);
    if (claimed.rows.length === 0) {
      const held = await trx
        .selectFrom('idempotency_keys')
        .select(['request_sha256', 'response'])
        .where('environment_id', '=', claim.environmentId)
        .where('key', '=', claim.key)
        .executeTakeFirstOrThrow();
      return { kind: 'taken', requestSha256: Buffer.from(held.request_sha256), response: held.response };
    }
    const outcomes = items.length > 0 ? await acceptMessages(trx, items) : [];
    const record = trx
      .updateTable('idempotency_keys')
      .where('environment_id', '=', claim.environmentId)
      .where('key', '=', claim.key);
    // Nothing accepted (every item refused in the statement): the key is not kept, as for a
    // refused send, so the corrected batch may use it.
    if (outcomes.some((o) => o.kind === 'accepted'))
      await record.set({ response: JSON.stringify(answer(outcomes)) }).execute();
    else
      await trx
        .deleteFrom('idempotency_keys')
        .where('environment_id', '=', claim.environmentId)
        .where('key', '=', claim.key)
        .execute();
    return { kind: 'accepted', outcomes };
  });
}

/** A live record of the key: its request's digest and, for a batch, its answer. */
export async function findBatchRecord(db: Db, environmentId: string, key: string, now: Date) {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_sha256', 'response'])
    .where('environment_id', '=', environmentId)
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { requestSha256: Buffer.from(row.request_sha256), response: row.response };
}
