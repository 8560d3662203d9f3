import { runCommonRouteTests } from '@mailsvc/testkit/common-route-tests';
import { bearer, createHarness, type Harness, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const getQuota = (apiKey: string) => h.request({ method: 'GET', url: '/v1/quota', headers: bearer(apiKey) });

async function setUsage(
  tenantId: string,
  environmentId: string,
  period: string,
  tenantSent: number,
  envSent: number,
) {
  await h.runtime.deps.db
    .insertInto('tenant_usage')
    .values({ tenant_id: tenantId, period, sent: tenantSent })
    .onConflict((oc) => oc.columns(['tenant_id', 'period']).doUpdateSet({ sent: tenantSent }))
    .execute();
  await h.runtime.deps.db
    .insertInto('environment_usage')
    .values({ environment_id: environmentId, tenant_id: tenantId, period, sent: envSent })
    .onConflict((oc) => oc.columns(['environment_id', 'period']).doUpdateSet({ sent: envSent }))
    .execute();
}

describe('GET /v1/quota', () => {
  it('answers 200 with every field of the seed Quota table', async () => {
    const s = await seedScope(h, { monthlyLimit: 500 });
    const res = await getQuota(s.apiKey);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      ok: true,
      quota: {
        tenantId: s.tenantId,
        projectId: s.projectId,
        environmentId: s.environmentId,
        planId: s.planId,
        accessStatus: 'active',
        sendingStatus: 'active',
        period: { id: '2026-11', startsAt: '2026-11-01T00:00:00.000Z', endsAt: '2026-12-01T00:00:00.000Z' },
        monthly: {
          limit: 500,
          used: 0,
          remaining: 500,
          overageAllowed: false,
          overageEmails: 0,
          status: 'available',
        },
        environment: { usedThisMonth: 0 },
      },
    });
  });

  it('counts the whole tenant in monthly.used and only this environment in usedThisMonth', async () => {
    const s = await seedScope(h, { monthlyLimit: 100 });
    await setUsage(s.tenantId, s.environmentId, '2026-11', 40, 15);
    await setUsage(s.tenantId, s.environmentId, '2026-10', 99, 99); // last month does not count
    const q = (await getQuota(s.apiKey)).json().quota;
    expect(q.monthly).toMatchObject({ used: 40, remaining: 60, overageEmails: 0, status: 'available' });
    expect(q.environment.usedThisMonth).toBe(15);
  });

  it("does not count another tenant's usage", async () => {
    const a = await seedScope(h, { monthlyLimit: 100 });
    const b = await seedScope(h, { monthlyLimit: 100 });
    await setUsage(b.tenantId, b.environmentId, '2026-11', 77, 77);
    const q = (await getQuota(a.apiKey)).json().quota;
    expect(q.monthly.used).toBe(0);
    expect(q.environment.usedThisMonth).toBe(0);
  });

  it('reports exhausted at the limit when the plan allows no overage', async () => {
    const s = await seedScope(h, { monthlyLimit: 10, overageAllowed: false });
    await setUsage(s.tenantId, s.environmentId, '2026-11', 10, 10);
    const q = (await getQuota(s.apiKey)).json().quota;
    expect(q.monthly).toEqual({
      limit: 10,
      used: 10,
      remaining: 0,
      overageAllowed: false,
      overageEmails: 0,
      status: 'exhausted',
    });
  });

  it('reports overage and overageEmails past the limit when overage is allowed', async () => {
    const s = await seedScope(h, { monthlyLimit: 10, overageAllowed: true });
    await setUsage(s.tenantId, s.environmentId, '2026-11', 13, 13);
    const q = (await getQuota(s.apiKey)).json().quota;
    expect(q.monthly).toEqual({
      limit: 10,
      used: 13,
      remaining: 0,
      overageAllowed: true,
      overageEmails: 3,
      status: 'overage',
    });
  });

  it('starts a new period at midnight UTC on the first of the month', async () => {
    const s = await seedScope(h);
    h.clock.set('2026-12-31T23:59:59.999Z');
    expect((await getQuota(s.apiKey)).json().quota.period).toEqual({
      id: '2026-12',
      startsAt: '2026-12-01T00:00:00.000Z',
      endsAt: '2027-01-01T00:00:00.000Z',
    });
    h.clock.set('2027-01-01T00:00:00.000Z');
    expect((await getQuota(s.apiKey)).json().quota.period.id).toBe('2027-01');
    h.clock.set('2026-11-22T10:15:30.123Z');
  });

  it('shows sendingStatus paused and blocked', async () => {
    const s = await seedScope(h);
    await h.admin('environments.update', { id: s.environmentId, sendingStatus: 'paused' });
    h.clock.advance(5001); // past the key cache
    expect((await getQuota(s.apiKey)).json().quota.sendingStatus).toBe('paused');
    await h.admin('environments.update', { id: s.environmentId, sendingStatus: 'blocked' });
    h.clock.advance(5001);
    expect((await getQuota(s.apiKey)).json().quota.sendingStatus).toBe('blocked');
  });

  it('reports trialing while the trial runs', async () => {
    const s = await seedScope(h, { trialEndsAt: '2026-12-01T00:00:00.000Z' });
    expect((await getQuota(s.apiKey)).json().quota.accessStatus).toBe('trialing');
  });

  it('reports suspended tenants as accessStatus suspended', async () => {
    const s = await seedScope(h);
    await h.admin('tenants.update', { id: s.tenantId, accessStatus: 'suspended' });
    expect((await getQuota(s.apiKey)).json().quota.accessStatus).toBe('suspended');
  });
});

describe('GET /v1/quota errors', () => {
  const expectError = async (apiKey: string, status: number, code: string) => {
    const res = await getQuota(apiKey);
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe(code);
  };

  it('refuses a trial that ends this very moment with 402 trial_expired', async () => {
    const s = await seedScope(h, { trialEndsAt: '2026-11-22T10:15:30.123Z' });
    await expectError(s.apiKey, 402, 'trial_expired');
  });

  it('checks trial, then project, then environment', async () => {
    const s = await seedScope(h, { trialEndsAt: '2026-01-01T00:00:00.000Z' });
    await h.admin('projects.update', { id: s.projectId, status: 'inactive' });
    await h.admin('environments.update', { id: s.environmentId, status: 'inactive' });
    await expectError(s.apiKey, 402, 'trial_expired');
    await h.admin('tenants.update', { id: s.tenantId, accessStatus: 'active' });
    await expectError(s.apiKey, 403, 'project_inactive');
  });
});

runCommonRouteTests('getQuota', () => h);
