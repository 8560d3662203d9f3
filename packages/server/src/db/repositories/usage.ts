import type { Db } from '../schema.js';

export async function readUsage(db: Db, q: { tenantId: string; environmentId: string; period: string }) {
  const row = await db
    .selectFrom('plans as pl')
    .innerJoin('tenants as t', 't.plan_id', 'pl.id')
    .leftJoin('tenant_usage as tu', (j) =>
      j.onRef('tu.tenant_id', '=', 't.id').on('tu.period', '=', q.period),
    )
    .leftJoin('environment_usage as eu', (j) =>
      j.on('eu.environment_id', '=', q.environmentId).on('eu.period', '=', q.period),
    )
    .select([
      'pl.id as planId',
      'pl.monthly_limit as monthlyLimit',
      'pl.overage_allowed as overageAllowed',
      'tu.sent as tenantSent',
      'eu.sent as environmentSent',
    ])
    .where('t.id', '=', q.tenantId)
    .executeTakeFirstOrThrow();
  return { ...row, tenantSent: row.tenantSent ?? 0, environmentSent: row.environmentSent ?? 0 };
}

export async function readTenantUsage(db: Db, tenantId: string, period: string) {
  const tenant = await db
    .selectFrom('tenant_usage')
    .select('sent')
    .where('tenant_id', '=', tenantId)
    .where('period', '=', period)
    .executeTakeFirst();
  const environments = await db
    .selectFrom('environment_usage')
    .select(['environment_id as environmentId', 'sent'])
    .where('tenant_id', '=', tenantId)
    .where('period', '=', period)
    .orderBy('environment_id')
    .execute();
  return { sent: tenant?.sent ?? 0, environments };
}
