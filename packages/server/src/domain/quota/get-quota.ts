import { readUsage } from '../../db/repositories/usage.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import { usagePeriod } from './period.js';
import { type MonthlyStatus, monthlyStatus } from './quota-rule.js';

export interface Quota {
  tenantId: string;
  projectId: string;
  environmentId: string;
  planId: string;
  accessStatus: AuthContext['accessStatus'];
  sendingStatus: AuthContext['sendingStatus'];
  period: { id: string; startsAt: string; endsAt: string };
  monthly: {
    limit: number;
    used: number;
    remaining: number;
    overageAllowed: boolean;
    overageEmails: number;
    status: MonthlyStatus;
  };
  environment: { usedThisMonth: number };
}

export async function getQuota(deps: Pick<Deps, 'db' | 'clock'>, auth: AuthContext): Promise<Quota> {
  const period = usagePeriod(deps.clock.now());
  const u = await readUsage(deps.db, {
    tenantId: auth.tenantId,
    environmentId: auth.environmentId,
    period: period.id,
  });
  return {
    tenantId: auth.tenantId,
    projectId: auth.projectId,
    environmentId: auth.environmentId,
    planId: u.planId,
    accessStatus: auth.accessStatus,
    sendingStatus: auth.sendingStatus,
    period: { id: period.id, startsAt: period.startsAt.toISOString(), endsAt: period.endsAt.toISOString() },
    monthly: {
      limit: u.monthlyLimit,
      used: u.tenantSent,
      remaining: Math.max(0, u.monthlyLimit - u.tenantSent),
      overageAllowed: u.overageAllowed,
      overageEmails: Math.max(0, u.tenantSent - u.monthlyLimit),
      status: monthlyStatus(u.tenantSent, u.monthlyLimit, u.overageAllowed),
    },
    environment: { usedThisMonth: u.environmentSent },
  };
}
