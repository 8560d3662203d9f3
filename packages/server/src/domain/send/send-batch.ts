// POST /v1/send/batch (DESIGN.md §12): 1–100 sends, each with the fields and the checks of
// POST /v1/send (DESIGN.md §3, in its order; send-email.ts), answered one result per item in order.
// Items are independent: one that fails a check is answered with that check's error, with paths
// under /items/N, and never refuses the others. The items that pass are accepted together in one
// statement (one transaction, one commit). Rate limits count items. An Idempotency-Key names the
// whole batch: within 24 hours the same batch gets the same answer back (`idempotent: true`),
// another batch 409 idempotency_key_reused.
import {
  type SendBatchRequest,
  type SendBatchResponse,
  type SendBatchResult,
  SendRequest,
} from '@mailsvc/contract/api';
import { rateLimitHeaders } from '@mailsvc/contract/rate-limit';
import { findSizeProblems } from '@mailsvc/contract/size-bounds';
import type { ValidateFunction } from 'ajv';
import type { AcceptOutcome } from '../../db/repositories/send.js';
import { acceptBatch, findBatchRecord } from '../../db/repositories/send-batch.js';
import { ApiError } from '../../errors.js';
import { createAjv, toFieldProblems } from '../../validation.js';
import type { AuthContext } from '../auth/authenticate.js';
import { apiKeyPolicy } from '../auth/rate-limit.js';
import type { Deps } from '../deps.js';
import { parseEmail } from '../email.js';
import { usagePeriod } from '../quota/period.js';
import { requestDigest } from './canonical-json.js';
import { IDEMPOTENCY_WINDOW_MS } from './message-policy.js';
import {
  acceptItem,
  answerWhileNotActive,
  type CheckedSend,
  checkIdempotencyKey,
  checkWithoutReads,
  comparableRequest,
  refusalError,
  type SendInput,
  type SendRequestFacts,
  storedMetadata,
} from './send-email.js';

/** An item's body against POST /v1/send's schema, compiled on first use. */
let validateItem: ValidateFunction | undefined;

type Shaped = { facts: SendRequestFacts; input: SendInput };
type Checked = Shaped & { send: CheckedSend };

/** Step 2 of one item: its shape (the send's schema) and its recipient. */
function checkShape(item: unknown, at: string, now: Date): Shaped | ApiError {
  const sized = findSizeProblems(SendRequest, item);
  validateItem ??= createAjv().compile(SendRequest);
  const problems = sized.length > 0 ? sized : validateItem(item) ? [] : toFieldProblems(validateItem.errors);
  if (problems.length > 0)
    return new ApiError(
      'invalid_request',
      'The send is not valid.',
      problems.map((p) => ({ path: `${at}${p.path === '/' ? '' : p.path}`, message: p.message })),
    );
  const input = item as SendInput;
  const to = parseEmail(input.to);
  if (!to.ok)
    return new ApiError('invalid_request', `to ${to.reason}.`, [{ path: `${at}/to`, message: to.reason }]);
  return {
    input,
    facts: {
      to: to.address,
      metadata: storedMetadata(input.metadata),
      idempotencyKey: undefined,
      digest: undefined,
      now,
    },
  };
}

/** An error of one item, its paths moved under the item. */
function itemError(err: unknown, at: string): SendBatchResult {
  if (!(err instanceof ApiError)) throw err;
  const details = err.details?.map((d) => ({
    path: d.path.startsWith(at) ? d.path : `${at}${d.path === '/' ? '' : d.path}`,
    message: d.message,
  }));
  return {
    status: 'refused',
    error: { code: err.code, message: err.message, ...(details && details.length > 0 && { details }) },
  };
}

/** Steps 2 to 6 and 8 of every item; the ones that pass, ready to accept. */
async function checkItems(
  deps: Deps,
  auth: AuthContext,
  items: readonly unknown[],
  now: Date,
): Promise<{ results: (SendBatchResult | undefined)[]; ready: (Checked & { index: number })[] }> {
  const results: (SendBatchResult | undefined)[] = new Array(items.length).fill(undefined);
  const ready: (Checked & { index: number })[] = [];
  for (const [index, item] of items.entries()) {
    const at = `/items/${index}`;
    const shaped = checkShape(item, at, now);
    if (shaped instanceof ApiError) {
      results[index] = itemError(shaped, at);
      continue;
    }
    try {
      const send = checkWithoutReads(auth, shaped.input, now, at);
      // 7 and 8 for a paused or blocked environment: its answer, read per item (nothing is sent)
      if (auth.sendingStatus !== 'active') await answerWhileNotActive(deps, auth, send, shaped.facts);
      ready.push({ ...shaped, send, index });
    } catch (err) {
      results[index] = itemError(err, at);
    }
  }
  return { results, ready };
}

function outcomeResult(outcome: AcceptOutcome, c: Checked, messageId: string, at: string): SendBatchResult {
  switch (outcome.kind) {
    case 'accepted':
      return { status: 'accepted', messageId };
    case 'refused':
      return itemError(refusalError(outcome.refusal, outcome.sendingDomain, c.send.sender), at);
    case 'quota_exceeded':
      return itemError(
        new ApiError(
          'monthly_quota_exceeded',
          'The monthly quota is used up and the plan allows no overage.',
        ),
        at,
      );
    case 'idempotency_taken':
      // items carry no Idempotency-Key of their own
      throw new Error('accept_messages answered idempotency_taken for a batch item');
  }
}

/**
 * Counts the items beyond the one the request itself counted; 429 when the key's rate is spent.
 * A batch larger than the key may ever send at once (its plan's rate, or its burst allowance) is
 * 400: waiting would not help.
 */
async function countItems(deps: Deps, auth: AuthContext, n: number): Promise<void> {
  if (n <= 1) return;
  const policy = apiKeyPolicy(auth.rateLimit);
  // the most one count can take: the second's allowance, or the burst allowance once it is spent
  const atOnce = Math.max(policy.points, policy.burst?.points ?? 0);
  if (policy.points > 0 && n > atOnce)
    throw new ApiError(
      'invalid_request',
      `A batch counts each send against the key's rate limit, and this key's plan lets it send at most ${atOnce} at once: split the batch.`,
      [{ path: '/items', message: `must have at most ${atOnce} items for this key` }],
    );
  const decision = await deps.rateLimits.limiter(policy).consume(auth.keyId, n - 1);
  if (!decision.ok)
    throw new ApiError(
      'rate_limited',
      `A batch counts each of its ${n} sends against this API key's rate limit (${policy.points} per second); retry after ${decision.retryAfterSeconds} s.`,
      undefined,
      rateLimitHeaders(policy, decision),
    );
}

/**
 * What "the same batch" means for an Idempotency-Key: the items in order, each as the send route
 * compares a send (the recipient normalised, the version resolved, metadata {} as none) when it
 * has the send's shape, else as given.
 */
function batchDigest(items: readonly unknown[], now: Date): Buffer {
  return requestDigest({
    operation: 'sendBatch',
    items: items.map((item, i) => {
      const shaped = checkShape(item, `/items/${i}`, now);
      return shaped instanceof ApiError ? item : comparableRequest(shaped.input, shaped.facts.to);
    }),
  });
}

/** The answer a live record of the key gives: its batch's answer again, or 409 for anything else. */
function replayBatch(
  held: { requestSha256: Buffer; response: Record<string, unknown> | null },
  digest: Buffer,
): Omit<SendBatchResponse, 'ok'> {
  // held by another batch, or by something else (a send, a bulk send: no batch answer)
  if (held.response === null || !held.requestSha256.equals(digest))
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request in the last 24 hours.',
    );
  return { ...(held.response as Omit<SendBatchResponse, 'ok' | 'idempotent'>), idempotent: true };
}

export async function sendBatch(
  deps: Deps,
  auth: AuthContext,
  body: SendBatchRequest,
  rawIdempotencyKey: string | string[] | undefined,
): Promise<Omit<SendBatchResponse, 'ok'>> {
  const now = deps.clock.now();
  const idempotencyKey = checkIdempotencyKey(rawIdempotencyKey);
  await countItems(deps, auth, body.items.length);
  const digest = idempotencyKey === undefined ? undefined : batchDigest(body.items, now);
  // 3. a live record of the key answers first, as for a send: the replay, or 409 (whatever the items)
  if (idempotencyKey !== undefined) {
    const held = await findBatchRecord(deps.db, auth.environmentId, idempotencyKey, now);
    if (held) return replayBatch(held, digest!);
  }
  const { results, ready } = await checkItems(deps, auth, body.items, now);
  const accepted = ready.map((c) => acceptItem(deps, auth, c.send, c.facts));
  const answerOf = (outcomes: AcceptOutcome[]) => {
    for (const [i, c] of ready.entries())
      results[c.index] = outcomeResult(outcomes[i]!, c, accepted[i]!.message.id, `/items/${c.index}`);
    const all = results as SendBatchResult[];
    const n = all.filter((r) => r.status === 'accepted').length;
    return { accepted: n, refused: all.length - n, results: all };
  };
  let answer: ReturnType<typeof answerOf> | undefined;
  // A batch none of whose items is accepted is not recorded under its key (as a refused send is
  // not): the corrected batch may use the same key. With no item left to accept, nothing is claimed;
  // with items the database then refuses, acceptBatch drops its claim.
  const outcome = await acceptBatch(
    deps.db,
    accepted,
    idempotencyKey === undefined || accepted.length === 0
      ? undefined
      : {
          tenantId: auth.tenantId,
          environmentId: auth.environmentId,
          period: usagePeriod(now).id,
          key: idempotencyKey,
          requestSha256: digest!,
          now,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        },
    (outcomes) => {
      answer = answerOf(outcomes);
      return answer;
    },
  );
  // taken since the read above: by a concurrent batch with the same items, or by another request
  if (outcome.kind === 'taken') return replayBatch(outcome, digest!);
  answer ??= answerOf(outcome.outcomes);
  if (answer.accepted > 0) {
    deps.queue.notify();
    deps.log.info({ accepted: answer.accepted, refused: answer.refused }, 'batch accepted');
  }
  return { ...answer, idempotent: false };
}
