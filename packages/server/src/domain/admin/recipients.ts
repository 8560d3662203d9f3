// Operators' commands for recipients (DESIGN.md §5): show one, suppress, unsuppress, clear a
// complaint — facts about a mailbox that only an operator may override, each audited in the
// same transaction as the change (the admin command's) — and the audit trail itself.
import { type Static, Type } from '@sinclair/typebox';
import { auditedChange, listAuditEvents } from '../../db/repositories/audit.js';
import { findRecipient } from '../../db/repositories/recipients.js';
import {
  clearRecipientComplaint,
  liftRecipientSuppression,
  type RecipientKey,
  suppressRecipientUntil,
} from '../../db/repositories/recipients-admin.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { maskEmail, parseEmail } from '../email.js';
import { recipientStateName } from '../recipients/eligibility.js';
import { recipientStatusOf, STATUS_MESSAGES_DEFAULT } from '../recipients/get-recipient-status.js';
import { parseTimestamp } from '../timestamp.js';
import { IdOf, Strict, Timestamp } from './schemas.js';
import { type AdminDeps, requireEnvironment, requireTenant } from './scope.js';

const RecipientInput = {
  environment: IdOf('env'),
  email: Type.String({ minLength: 1, maxLength: 320, description: 'the recipient address' }),
};

function address(email: string) {
  const parsed = parseEmail(email);
  if (!parsed.ok)
    throw new ApiError('invalid_request', 'Invalid recipient address.', [
      { path: '/email', message: parsed.reason },
    ]);
  return parsed;
}

export const ShowRecipientInput = Strict(RecipientInput);
export async function showRecipient(deps: AdminDeps, input: Static<typeof ShowRecipientInput>) {
  await requireEnvironment(deps.db, input.environment);
  return recipientStatusOf(
    deps.db,
    input.environment,
    address(input.email),
    deps.clock.now(),
    STATUS_MESSAGES_DEFAULT,
  );
}

const DAY_MS = 86_400_000;

/**
 * One audited change of a recipient row. `change` returns the number of rows it changed; the
 * audit event records the state before and whether anything changed.
 */
async function changeRecipient(
  deps: AdminDeps,
  input: { environment: string; email: string },
  actor: string,
  action: string,
  change: (trx: Db, q: RecipientKey & { tenantId: string }, now: Date) => Promise<number>,
  extra: Record<string, unknown> = {},
) {
  const env = await requireEnvironment(deps.db, input.environment);
  const parsed = address(input.email);
  const now = deps.clock.now();
  const emailMasked = maskEmail(parsed.address);
  await auditedChange(
    deps.db,
    now,
    async (trx) => {
      const previousState = recipientStateName(await findRecipient(trx, env.id, parsed.address, now));
      const q = { environmentId: env.id, tenantId: env.tenant_id, email: parsed.address };
      return { previousState, changed: await change(trx, q, now) };
    },
    ({ previousState, changed }) => ({
      tenantId: env.tenant_id,
      actor,
      action,
      targetType: 'recipient',
      targetId: `${env.id}:${emailMasked}`,
      details: { environmentId: env.id, emailMasked, previousState, hasChanged: changed > 0, ...extra },
    }),
  );
  return recipientStatusOf(deps.db, env.id, parsed, now, STATUS_MESSAGES_DEFAULT);
}

export const SuppressRecipientInput = Strict({
  ...RecipientInput,
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'how long (default 30 days)' })),
});
export async function suppressRecipient(
  deps: AdminDeps,
  input: Static<typeof SuppressRecipientInput>,
  actor: string,
) {
  const days = input.days ?? 30;
  return changeRecipient(
    deps,
    input,
    actor,
    'recipient.suppressed',
    (trx, q, now) => suppressRecipientUntil(trx, q, new Date(now.getTime() + days * DAY_MS), now),
    { days },
  );
}

export const UnsuppressRecipientInput = Strict(RecipientInput);
/** Ends a cooldown and a suppression, and restarts the bounce streak; the lifetime count stays. */
export async function unsuppressRecipient(
  deps: AdminDeps,
  input: Static<typeof UnsuppressRecipientInput>,
  actor: string,
) {
  return changeRecipient(deps, input, actor, 'recipient.unsuppressed', liftRecipientSuppression);
}

export const ClearComplaintInput = Strict(RecipientInput);
/** Lets a recipient who complained be mailed again; the lifetime complaint count stays. */
export async function clearComplaint(
  deps: AdminDeps,
  input: Static<typeof ClearComplaintInput>,
  actor: string,
) {
  return changeRecipient(deps, input, actor, 'recipient.complaint_cleared', clearRecipientComplaint);
}

// ---- audit

export const ListAuditInput = Strict({
  tenant: IdOf('ten'),
  since: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 100' })),
});
/** A tenant's audit events, newest first (addresses only ever masked in them). */
export async function listAudit(deps: AdminDeps, input: Static<typeof ListAuditInput>) {
  await requireTenant(deps.db, input.tenant);
  let since: Date | undefined;
  if (input.since !== undefined) {
    const parsed = parseTimestamp(input.since);
    if (!parsed)
      throw new ApiError('invalid_request', 'Invalid --since.', [
        { path: '/since', message: 'must be an RFC 3339 time' },
      ]);
    since = parsed;
  }
  const rows = await listAuditEvents(deps.db, { tenantId: input.tenant, since, limit: input.limit ?? 100 });
  return {
    events: rows.map((r) => ({
      id: r.id,
      at: r.created_at.toISOString(),
      actor: r.actor,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
    })),
  };
}
