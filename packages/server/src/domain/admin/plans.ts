// Admin use-cases for plans: the monthly limit, overage, and the per-key request rate and burst.
import { type Static, Type } from '@sinclair/typebox';
import { auditedChange } from '../../db/repositories/audit.js';
import { changePlan, insertPlan } from '../../db/repositories/tenancy.js';
import { ApiError } from '../../errors.js';
import { DEFAULT_RATE_LIMIT } from '../auth/rate-limit.js';
import { planRecord } from './records.js';
import { PlanId, Strict } from './schemas.js';
import { type AdminDeps, notFound, requirePlan } from './scope.js';

const RateLimitPerSecond = Type.Integer({
  minimum: 0,
  maximum: 1_000_000,
  description: 'requests per second per API key (0: no limit); default 100',
});
const RateLimitBurst = Type.Integer({
  minimum: 0,
  maximum: 10_000_000,
  description: 'requests a key may send at once, at least the rate; default 200',
});

const burstBelowRate = (perSecond?: number) =>
  new ApiError('invalid_request', 'The burst must be at least the rate per second.', [
    {
      path: '/rateLimitBurst',
      message: `must be at least the rate per second${perSecond === undefined ? '' : ` (${perSecond})`}`,
    },
  ]);

/** The burst must cover the rate: a plan whose burst is below its rate could never use it. */
function checkRateLimits(perSecond: number, burst: number): void {
  if (burst < perSecond) throw burstBelowRate(perSecond);
}

export const CreatePlanInput = Strict({
  id: PlanId,
  monthlyLimit: Type.Integer({ minimum: 0, maximum: 2_000_000_000 }),
  overageAllowed: Type.Boolean(),
  rateLimitPerSecond: Type.Optional(RateLimitPerSecond),
  rateLimitBurst: Type.Optional(RateLimitBurst),
});
export async function createPlan(deps: AdminDeps, input: Static<typeof CreatePlanInput>, actor: string) {
  const now = deps.clock.now();
  const perSecond = input.rateLimitPerSecond ?? DEFAULT_RATE_LIMIT.perSecond;
  const burst = input.rateLimitBurst ?? Math.max(perSecond, DEFAULT_RATE_LIMIT.burst);
  checkRateLimits(perSecond, burst);
  const plan = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertPlan(trx, {
        id: input.id,
        monthly_limit: input.monthlyLimit,
        overage_allowed: input.overageAllowed,
        rate_limit_per_second: perSecond,
        rate_limit_burst: burst,
        created_at: now,
        updated_at: now,
      }),
    (plan) =>
      plan
        ? {
            tenantId: null,
            actor,
            action: 'plan.created',
            targetType: 'plan',
            targetId: plan.id,
            details: { ...input },
          }
        : null,
  );
  if (!plan) throw new ApiError('conflict', `Plan ${input.id} already exists; use plans update.`);
  return { plan: planRecord(plan) };
}

export const UpdatePlanInput = Strict({
  id: PlanId,
  monthlyLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000_000_000 })),
  overageAllowed: Type.Optional(Type.Boolean()),
  rateLimitPerSecond: Type.Optional(RateLimitPerSecond),
  rateLimitBurst: Type.Optional(RateLimitBurst),
});
export async function updatePlan(deps: AdminDeps, input: Static<typeof UpdatePlanInput>, actor: string) {
  if (input.rateLimitPerSecond !== undefined || input.rateLimitBurst !== undefined) {
    const current = await requirePlan(deps.db, input.id);
    checkRateLimits(
      input.rateLimitPerSecond ?? current.rate_limit_per_second,
      input.rateLimitBurst ?? current.rate_limit_burst,
    );
  }
  const now = deps.clock.now();
  const plan = await auditedChange(
    deps.db,
    now,
    (trx) =>
      changePlan(trx, input.id, {
        ...(input.monthlyLimit !== undefined && { monthly_limit: input.monthlyLimit }),
        ...(input.overageAllowed !== undefined && { overage_allowed: input.overageAllowed }),
        ...(input.rateLimitPerSecond !== undefined && { rate_limit_per_second: input.rateLimitPerSecond }),
        ...(input.rateLimitBurst !== undefined && { rate_limit_burst: input.rateLimitBurst }),
        updated_at: now,
      }),
    (plan) =>
      plan
        ? {
            tenantId: null,
            actor,
            action: 'plan.updated',
            targetType: 'plan',
            targetId: plan.id,
            details: { ...input },
          }
        : null,
  ).catch((err: { code?: string }) => {
    // A concurrent update changed the other half of the pair: the table's CHECK refuses it.
    if (err.code === '23514') throw burstBelowRate();
    throw err;
  });
  if (!plan) throw notFound('plan', input.id);
  return { plan: planRecord(plan) };
}

export const ListPlansInput = Strict({});
/** Every plan, by id (a tenant-less plan too: the console's operator area offers them). */
export async function listPlans(deps: AdminDeps) {
  const plans = await deps.db.selectFrom('plans').selectAll().orderBy('id').execute();
  return { plans: plans.map(planRecord) };
}
