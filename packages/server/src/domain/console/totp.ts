// A console person's optional second factor: TOTP (RFC 6238: 30-second steps, 6 digits, SHA-1, as
// every authenticator app reads it) through @oslojs/otp, on the service's clock. Set up (a secret
// and its otpauth URI, shown once), confirmed with a code, then asked for at every sign-in after
// the mailed code; a code is good once (the last accepted step is kept), one step early or late.
import { randomBytes } from 'node:crypto';
import { encodeBase32NoPadding } from '@oslojs/encoding';
import { createTOTPKeyURI, generateHOTP, verifyHOTP } from '@oslojs/otp';
import type { Db } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError } from '../../errors.js';
import type { Deps } from '../deps.js';

const STEP_S = 30;
const DIGITS = 6;

const stepOf = (now: Date) => Math.floor(now.getTime() / 1000 / STEP_S);

/** For tests and the console's own checks: the code of a secret at a time. */
export const totpCodeAt = (secret: Uint8Array, at: Date) => generateHOTP(secret, BigInt(stepOf(at)), DIGITS);

function findTotp(db: Db, email: string, forUpdate = false) {
  const q = db.selectFrom('console_totp').selectAll().where('email', '=', email);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

export async function isTotpEnabled(db: Db, email: string): Promise<boolean> {
  return Boolean((await findTotp(db, email))?.enabled_at);
}

/** The step a code matches (this one, the one before or after) after the last accepted one, or null. */
function matchingStep(
  secret: Uint8Array,
  code: string,
  now: Date,
  lastCounter: number | null,
): number | null {
  const step = stepOf(now);
  for (const s of [step, step - 1, step + 1]) {
    if (lastCounter !== null && s <= lastCounter) continue;
    if (verifyHOTP(secret, BigInt(s), DIGITS, code)) return s;
  }
  return null;
}

/** A new secret for the address (replacing one not confirmed yet); an enabled one is turned off first. */
export async function setUpTotp(deps: Deps, email: string) {
  const secret = randomBytes(20);
  const now = deps.clock.now();
  // One statement: two setups at once both end with a secret (the later one), never a conflict.
  const set = await deps.db
    .insertInto('console_totp')
    .values({ email, secret, created_at: now })
    .onConflict((oc) =>
      oc
        .column('email')
        .doUpdateSet({ secret, created_at: now, last_counter: null })
        .where('console_totp.enabled_at', 'is', null),
    )
    .returning('email')
    .executeTakeFirst();
  if (!set)
    throw new ApiError(
      'invalid_request',
      'Two-factor sign-in is on already: turn it off first, with a code.',
    );
  return {
    secret: encodeBase32NoPadding(secret),
    uri: createTOTPKeyURI('mailsvc', email, secret, STEP_S, DIGITS),
  };
}

const wrongTotp = () =>
  new ApiError('invalid_request', 'That authenticator code is not right.', [
    { path: '/code', message: 'is not the current code of your authenticator app' },
  ]);

/** Confirms the secret set up with a current code: from now on sign-in asks for one. */
export async function enableTotp(deps: Deps, email: string, code: string) {
  const now = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    const row = await findTotp(trx, email, true);
    if (!row || row.enabled_at) throw new ApiError('invalid_request', 'Set two-factor sign-in up first.');
    const step = matchingStep(row.secret, code, now, null);
    if (step === null) throw wrongTotp();
    await trx
      .updateTable('console_totp')
      .set({ enabled_at: now, last_counter: step })
      .where('email', '=', email)
      .execute();
  });
  return { enabled: true as const };
}

export async function disableTotp(deps: Deps, email: string, code: string) {
  const now = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    const row = await findTotp(trx, email, true);
    if (!row?.enabled_at) throw new ApiError('invalid_request', 'Two-factor sign-in is not on.');
    if (
      matchingStep(row.secret, code, now, row.last_counter === null ? null : Number(row.last_counter)) ===
      null
    )
      throw wrongTotp();
    await trx.deleteFrom('console_totp').where('email', '=', email).execute();
  });
  return { enabled: false as const };
}

/**
 * At sign-in, in the code's transaction: 'none' when the address has no second factor, 'ok' when
 * `code` is a current one not used before (it is now), 'missing' or 'wrong' otherwise.
 */
export async function checkSignInTotp(trx: Db, email: string, code: string | undefined, now: Date) {
  const row = await findTotp(trx, email, true);
  if (!row?.enabled_at) return 'none' as const;
  if (code === undefined) return 'missing' as const;
  const step = matchingStep(
    row.secret,
    code,
    now,
    row.last_counter === null ? null : Number(row.last_counter),
  );
  if (step === null) return 'wrong' as const;
  await trx.updateTable('console_totp').set({ last_counter: step }).where('email', '=', email).execute();
  return 'ok' as const;
}
