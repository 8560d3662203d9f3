// Sign-in without a third party (DESIGN.md §14): a 6-digit code mailed to the address, good for 10
// minutes, 5 tries and one use; then a server-side session whose token only the cookie holds.
// Codes are asked at most 5 times in 15 minutes per address and 20 per client; a wrong code counts
// against the client as a wrong API key does (auth-hook.ts checkFailure).
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import {
  countCodeAttempt,
  countFailedTries,
  countRecentCodes,
  findLatestCodeForUpdate,
  insertSession,
  insertSignInCode,
  listMembershipsOf,
  markMembersSignedIn,
  supersedeCodes,
} from '../../db/repositories/console-people.js';
import type { Db } from '../../db/schema.js';
import { inTransaction, lockUntilCommit } from '../../db/transaction.js';
import { ApiError, retryLater } from '../../errors.js';
import { newId, randomBase62 } from '../../ids.js';
import type { Deps } from '../deps.js';
import { maskEmail, parseEmail } from '../email.js';
import { sendSystemMail } from './system-mail.js';
import { checkSignInTotp } from './totp.js';

export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
const CODE_WINDOW_MS = 15 * 60_000;
const CODES_PER_ADDRESS = 5;
const CODES_PER_CLIENT = 20;
const FAILED_TRIES_PER_DAY = 20;
const DAY_MS = 24 * 3600_000;
/** A session ends 7 days after sign-in, whatever its use (idle: SESSION_IDLE_MS). */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;

const codeDigest = (id: string, code: string) => createHash('sha256').update(`${id}:${code}`).digest();
export const sessionDigest = (token: string) => createHash('sha256').update(token).digest();

/** An address as sign-in compares it: lower-cased (members are stored so); 400 if it is none. */
export function normaliseAddress(email: string): string {
  const parsed = parseEmail(email);
  if (!parsed.ok)
    throw new ApiError('invalid_request', `email ${parsed.reason}.`, [
      { path: '/email', message: parsed.reason },
    ]);
  return parsed.address.toLowerCase();
}

/**
 * Mails a code when the address is a member of some tenant; answers the same either way (nobody
 * learns who is a member). Over a limit: 429 with the seconds to wait.
 */
export async function startSignIn(deps: Deps, input: { email: string; client: string }) {
  const email = normaliseAddress(input.email);
  const now = deps.clock.now();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  // Counted and written under the address's and the client's locks: parallel requests cannot all
  // see room under the limits.
  await inTransaction(deps.db, async (trx) => {
    await lockUntilCommit(trx, `sign-in:${email}`);
    await lockUntilCommit(trx, `sign-in-client:${input.client}`);
    await refuseOverLimits(trx, email, input.client, now);
    await supersedeCodes(trx, email, now);
    const id = newId('sic', now.getTime());
    await insertSignInCode(
      trx,
      {
        id,
        email,
        codeSha256: codeDigest(id, code),
        client: input.client,
        expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      },
      now,
    );
  });
  // Mailed after the answer's work, not before it: a member's answer takes no longer than anyone's.
  void mailCode(deps, email, code);
  return { sent: true as const, expiresInSeconds: CODE_TTL_MS / 1000 };
}

async function mailCode(deps: Deps, email: string, code: string): Promise<void> {
  try {
    if ((await listMembershipsOf(deps.db, email)).length === 0) return;
    await sendSystemMail(deps, 'login-code', email, {
      code,
      intro: 'Use this code to sign in to the mailsvc console. It expires in 10 minutes.',
    });
    deps.log.info({ to: maskEmail(email) }, 'console sign-in code sent');
  } catch (err) {
    deps.log.error({ err, to: maskEmail(email) }, 'console sign-in code not sent');
  }
}

/**
 * 5 codes per address and 20 per client in 15 minutes; and after 20 wrong codes for an address in
 * a day, no more codes for it that day (guessing, however slow, stops there).
 */
async function refuseOverLimits(db: Db, email: string, client: string, now: Date): Promise<void> {
  const recent = await countRecentCodes(db, email, client, new Date(now.getTime() - CODE_WINDOW_MS));
  if (recent.byEmail >= CODES_PER_ADDRESS || recent.byClient >= CODES_PER_CLIENT)
    throw retryLater(
      'Too many sign-in codes asked for; wait 15 minutes and ask again.',
      CODE_WINDOW_MS / 1000,
    );
  if ((await countFailedTries(db, email, new Date(now.getTime() - DAY_MS))) >= FAILED_TRIES_PER_DAY)
    throw retryLater('Too many wrong codes for this address today; try again tomorrow.', DAY_MS / 1000);
}

const wrongCode = (why: string) => new ApiError('invalid_sign_in_code', why);

/** Checks the address's newest code and, when right, opens a session: answers its token once. */
/**
 * The mailed code, then the second factor when the address has one; a missing or wrong second
 * factor counts as a wrong try of the code (5 in all), and leaves the code unused.
 */
async function checkCodes(trx: Db, email: string, input: { code: string; totp?: string }, now: Date) {
  const row = await findLatestCodeForUpdate(trx, email, now);
  if (!row) return wrongCode('That code is not right; ask for a new one.');
  if (row.used_at) return wrongCode('That code was used already; ask for a new one.');
  if (row.attempts >= CODE_MAX_ATTEMPTS)
    return wrongCode('Too many wrong tries for that code; ask for a new one.');
  if (row.expires_at.getTime() <= now.getTime()) return wrongCode('That code expired; ask for a new one.');
  const actual = codeDigest(row.id, input.code);
  const right = actual.length === row.code_sha256.length && timingSafeEqual(actual, row.code_sha256);
  const second = right ? await checkSignInTotp(trx, email, input.totp, now) : 'none';
  const passed = right && (second === 'none' || second === 'ok');
  await countCodeAttempt(trx, row.id, passed ? now : null);
  if (passed) return null;
  const left = CODE_MAX_ATTEMPTS - row.attempts - 1;
  const tries =
    left > 0 ? `${left} ${left === 1 ? 'try' : 'tries'} left` : 'the code is now locked; ask for a new one';
  if (second === 'missing' || second === 'wrong')
    return new ApiError(
      'invalid_sign_in_code',
      second === 'missing'
        ? 'This address signs in with an authenticator app too: enter its current code.'
        : `That authenticator code is not right; ${tries}.`,
      [{ path: '/totp', message: second === 'missing' ? 'is required' : 'is not the current code' }],
    );
  return wrongCode(
    left > 0
      ? `That code is not right; ${tries}.`
      : 'That code is not right, and it is now locked; ask for a new one.',
  );
}

/** Checks the address's newest code (and second factor) and, when right, opens a session: answers its token once. */
export async function verifySignIn(
  deps: Deps,
  input: { email: string; code: string; totp?: string; client: string; userAgent: string | null },
): Promise<{ token: string; sessionId: string }> {
  const email = normaliseAddress(input.email);
  const now = deps.clock.now();
  const checked = await inTransaction(deps.db, (trx) => checkCodes(trx, email, input, now));
  if (checked) throw checked;
  if ((await listMembershipsOf(deps.db, email)).length === 0)
    throw wrongCode('That address is not a member of any team; ask an owner to invite you.');
  const token = randomBase62(43);
  const sessionId = newId('ses', now.getTime());
  await insertSession(
    deps.db,
    {
      id: sessionId,
      tokenSha256: sessionDigest(token),
      email,
      expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      userAgent: input.userAgent?.slice(0, 300) ?? null,
      client: input.client,
    },
    now,
  );
  await markMembersSignedIn(deps.db, email, now);
  return { token, sessionId };
}
