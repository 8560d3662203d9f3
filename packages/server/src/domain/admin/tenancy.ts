// Admin use-cases for plans, tenants, projects and environments. Each is served twice: by the
// CLI against the database and by the api process at /admin/v1/… (see domain/admin/index.ts).
import { type Static, Type } from '@sinclair/typebox';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import type { Db } from '../../db/schema.js';
import { ApiError, type ErrorDetail } from '../../errors.js';
import { newId } from '../../ids.js';
import { DEFAULT_RATE_LIMIT } from '../auth/rate-limit.js';
import type { Deps } from '../deps.js';
import { checkDisplayName, parseEmail } from '../email.js';
import { parseTimestamp } from '../timestamp.js';
import {
  type BrandInput,
  brandColumns,
  LOGO_URL_MAX_LENGTH,
  MIN_BUTTON_CONTRAST,
  POSTAL_ADDRESS_MAX_LENGTH,
  POSTAL_ADDRESS_MAX_LINES,
} from './brand.js';
import { environmentRecord, planRecord, projectRecord, tenantRecord } from './records.js';
import {
  type AdminIdPrefix,
  IdOf,
  Name,
  OptionalEmail,
  PlanId,
  SenderSettingsInput,
  Strict,
  Timestamp,
} from './schemas.js';

export type AdminDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

const notFound = (what: string, id: string) => new ApiError('not_found', `No ${what} ${id}.`);

function senderColumns(input: { fromEmail?: string; fromName?: string; replyTo?: string }) {
  const details: ErrorDetail[] = [];
  const cols: { from_email?: string | null; from_name?: string | null; reply_to?: string | null } = {};
  const email = (v: string | undefined, path: string) => {
    if (v === undefined) return undefined;
    if (v === '') return null;
    const parsed = parseEmail(v);
    if (!parsed.ok) {
      details.push({ path, message: parsed.reason });
      return undefined;
    }
    return parsed.address;
  };
  const fromEmail = email(input.fromEmail, '/fromEmail');
  if (fromEmail !== undefined) cols.from_email = fromEmail;
  const replyTo = email(input.replyTo, '/replyTo');
  if (replyTo !== undefined) cols.reply_to = replyTo;
  if (input.fromName !== undefined) {
    const problem = checkDisplayName(input.fromName);
    if (problem) details.push({ path: '/fromName', message: problem });
    else cols.from_name = input.fromName === '' ? null : input.fromName;
  }
  if (details.length > 0) throw new ApiError('invalid_request', 'Invalid sender settings.', details);
  return cols;
}

async function requirePlan(db: Db, id: string) {
  const plan = await db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  if (!plan) throw notFound('plan', id);
  return plan;
}

async function requireTenant(db: Db, id: string) {
  const t = await db
    .selectFrom('tenants')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!t) throw notFound('tenant', id);
  return t;
}

async function requireProject(db: Db, id: string) {
  const p = await db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!p) throw notFound('project', id);
  return p;
}

async function requireEnvironment(db: Db, id: string) {
  const e = await db
    .selectFrom('environments')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!e) throw notFound('environment', id);
  return e;
}

export { requireEnvironment, requireProject, requireTenant };

// ---- plans

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
  const plan = await deps.db
    .insertInto('plans')
    .values({
      id: input.id,
      monthly_limit: input.monthlyLimit,
      overage_allowed: input.overageAllowed,
      rate_limit_per_second: perSecond,
      rate_limit_burst: burst,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!plan) throw new ApiError('conflict', `Plan ${input.id} already exists; use plans update.`);
  await insertAuditEvent(
    deps.db,
    {
      tenantId: null,
      actor,
      action: 'plan.created',
      targetType: 'plan',
      targetId: plan.id,
      details: { ...input },
    },
    deps.clock.now(),
  );
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
  const plan = await deps.db
    .updateTable('plans')
    .set({
      ...(input.monthlyLimit !== undefined && { monthly_limit: input.monthlyLimit }),
      ...(input.overageAllowed !== undefined && { overage_allowed: input.overageAllowed }),
      ...(input.rateLimitPerSecond !== undefined && { rate_limit_per_second: input.rateLimitPerSecond }),
      ...(input.rateLimitBurst !== undefined && { rate_limit_burst: input.rateLimitBurst }),
      updated_at: deps.clock.now(),
    })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirst()
    .catch((err: { code?: string }) => {
      // A concurrent update changed the other half of the pair: the table's CHECK refuses it.
      if (err.code === '23514') throw burstBelowRate();
      throw err;
    });
  if (!plan) throw notFound('plan', input.id);
  await insertAuditEvent(
    deps.db,
    {
      tenantId: null,
      actor,
      action: 'plan.updated',
      targetType: 'plan',
      targetId: plan.id,
      details: { ...input },
    },
    deps.clock.now(),
  );
  return { plan: planRecord(plan) };
}

// ---- tenants

export const CreateTenantInput = Strict({ name: Name, plan: PlanId, trialEndsAt: Type.Optional(Timestamp) });
export async function createTenant(deps: AdminDeps, input: Static<typeof CreateTenantInput>, actor: string) {
  await requirePlan(deps.db, input.plan);
  const now = deps.clock.now();
  const tenant = await deps.db
    .insertInto('tenants')
    .values({
      id: newId('ten', now.getTime()),
      name: input.name,
      plan_id: input.plan,
      access_status: input.trialEndsAt ? 'trialing' : 'active',
      trial_ends_at: input.trialEndsAt ? parseTimestamp(input.trialEndsAt) : null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    { tenantId: tenant.id, actor, action: 'tenant.created', targetType: 'tenant', targetId: tenant.id },
    now,
  );
  return { tenant: tenantRecord(tenant) };
}

export const UpdateTenantInput = Strict({
  id: IdOf('ten'),
  name: Type.Optional(Name),
  plan: Type.Optional(PlanId),
  accessStatus: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('trialing'), Type.Literal('suspended')]),
  ),
  trialEndsAt: Type.Optional(Type.Union([Timestamp, Type.Literal('')])),
});
export async function updateTenant(deps: AdminDeps, input: Static<typeof UpdateTenantInput>, actor: string) {
  await requireTenant(deps.db, input.id);
  if (input.plan) await requirePlan(deps.db, input.plan);
  const now = deps.clock.now();
  const tenant = await deps.db
    .updateTable('tenants')
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.plan !== undefined && { plan_id: input.plan }),
      ...(input.accessStatus !== undefined && { access_status: input.accessStatus }),
      ...(input.trialEndsAt !== undefined && {
        trial_ends_at: input.trialEndsAt === '' ? null : parseTimestamp(input.trialEndsAt),
      }),
      updated_at: now,
    })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const { id: _id, ...changes } = input;
  await insertAuditEvent(
    deps.db,
    {
      tenantId: tenant.id,
      actor,
      action: 'tenant.updated',
      targetType: 'tenant',
      targetId: tenant.id,
      details: changes,
    },
    now,
  );
  return { tenant: tenantRecord(tenant) };
}

export const DeleteInput = (prefix: AdminIdPrefix) => Strict({ id: IdOf(prefix) });
export const DeleteTenantInput = DeleteInput('ten');
export async function deleteTenant(deps: AdminDeps, input: { id: string }, actor: string) {
  await requireTenant(deps.db, input.id);
  const now = deps.clock.now();
  const tenant = await deps.db
    .updateTable('tenants')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    { tenantId: tenant.id, actor, action: 'tenant.deleted', targetType: 'tenant', targetId: tenant.id },
    now,
  );
  return { tenant: tenantRecord(tenant) };
}

export const ListTenantsInput = Strict({
  includeDeleted: Type.Optional(Type.Boolean({ description: 'also the deleted tenants' })),
});
export async function listTenants(deps: AdminDeps, input: Static<typeof ListTenantsInput>) {
  let q = deps.db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id');
  if (!input.includeDeleted) q = q.where('deleted_at', 'is', null);
  return { tenants: (await q.execute()).map(tenantRecord) };
}

// ---- projects

const ProjectSettings = {
  ...SenderSettingsInput,
  displayName: Type.Optional(Type.String({ maxLength: 120 })),
  supportEmail: Type.Optional(OptionalEmail),
  brandColor: Type.Optional(
    Type.String({
      maxLength: 7,
      description: `#rrggbb; white button text on it must reach ${MIN_BUTTON_CONTRAST}:1; '' clears it`,
    }),
  ),
  logoUrl: Type.Optional(
    Type.String({ maxLength: LOGO_URL_MAX_LENGTH, description: "an https URL of the logo; '' clears it" }),
  ),
  postalAddress: Type.Optional(
    Type.String({
      maxLength: POSTAL_ADDRESS_MAX_LENGTH * 2,
      description: `shown in notification footers; up to ${POSTAL_ADDRESS_MAX_LINES} lines, separated by line breaks, \\n or ' | '; '' clears it`,
    }),
  ),
};

function projectColumns(
  input: {
    displayName?: string;
    supportEmail?: string;
    fromEmail?: string;
    fromName?: string;
    replyTo?: string;
  } & BrandInput,
) {
  const cols: Record<string, string | null> = { ...senderColumns(input), ...brandColumns(input) };
  if (input.displayName !== undefined) {
    const problem = checkDisplayName(input.displayName);
    if (problem)
      throw new ApiError('invalid_request', 'Invalid display name.', [
        { path: '/displayName', message: problem },
      ]);
    cols.display_name = input.displayName === '' ? null : input.displayName;
  }
  if (input.supportEmail !== undefined) {
    if (input.supportEmail === '') cols.support_email = null;
    else {
      const parsed = parseEmail(input.supportEmail);
      if (!parsed.ok) {
        throw new ApiError('invalid_request', 'Invalid support email.', [
          { path: '/supportEmail', message: parsed.reason },
        ]);
      }
      cols.support_email = parsed.address;
    }
  }
  return cols;
}

export const CreateProjectInput = Strict({ tenant: IdOf('ten'), name: Name, ...ProjectSettings });
export async function createProject(
  deps: AdminDeps,
  input: Static<typeof CreateProjectInput>,
  actor: string,
) {
  await requireTenant(deps.db, input.tenant);
  const cols = projectColumns(input);
  const now = deps.clock.now();
  const project = await deps.db
    .insertInto('projects')
    .values({
      id: newId('prj', now.getTime()),
      tenant_id: input.tenant,
      name: input.name,
      created_at: now,
      updated_at: now,
      ...cols,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    {
      tenantId: project.tenant_id,
      actor,
      action: 'project.created',
      targetType: 'project',
      targetId: project.id,
    },
    now,
  );
  return { project: projectRecord(project) };
}

export const UpdateProjectInput = Strict({
  id: IdOf('prj'),
  name: Type.Optional(Name),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
  ...ProjectSettings,
});
export async function updateProject(
  deps: AdminDeps,
  input: Static<typeof UpdateProjectInput>,
  actor: string,
) {
  await requireProject(deps.db, input.id);
  const cols = projectColumns(input);
  const now = deps.clock.now();
  const project = await deps.db
    .updateTable('projects')
    .set({
      ...cols,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.status !== undefined && { status: input.status }),
      updated_at: now,
    })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const { id: _id, ...changes } = input;
  await insertAuditEvent(
    deps.db,
    {
      tenantId: project.tenant_id,
      actor,
      action: 'project.updated',
      targetType: 'project',
      targetId: project.id,
      details: changes,
    },
    now,
  );
  return { project: projectRecord(project) };
}

export const DeleteProjectInput = DeleteInput('prj');
export async function deleteProject(deps: AdminDeps, input: { id: string }, actor: string) {
  await requireProject(deps.db, input.id);
  const now = deps.clock.now();
  const project = await deps.db
    .updateTable('projects')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    {
      tenantId: project.tenant_id,
      actor,
      action: 'project.deleted',
      targetType: 'project',
      targetId: project.id,
    },
    now,
  );
  return { project: projectRecord(project) };
}

export const ListProjectsInput = Strict({ tenant: IdOf('ten') });
export async function listProjects(deps: AdminDeps, input: Static<typeof ListProjectsInput>) {
  await requireTenant(deps.db, input.tenant);
  const rows = await deps.db
    .selectFrom('projects')
    .selectAll()
    .where('tenant_id', '=', input.tenant)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { projects: rows.map(projectRecord) };
}

// ---- environments

export const CreateEnvironmentInput = Strict({ project: IdOf('prj'), name: Name, ...SenderSettingsInput });
export async function createEnvironment(
  deps: AdminDeps,
  input: Static<typeof CreateEnvironmentInput>,
  actor: string,
) {
  const project = await requireProject(deps.db, input.project);
  const cols = senderColumns(input);
  const now = deps.clock.now();
  const environment = await deps.db
    .insertInto('environments')
    .values({
      id: newId('env', now.getTime()),
      tenant_id: project.tenant_id,
      project_id: project.id,
      name: input.name,
      created_at: now,
      updated_at: now,
      ...cols,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    {
      tenantId: environment.tenant_id,
      actor,
      action: 'environment.created',
      targetType: 'environment',
      targetId: environment.id,
    },
    now,
  );
  return { environment: environmentRecord(environment) };
}

export const UpdateEnvironmentInput = Strict({
  id: IdOf('env'),
  name: Type.Optional(Name),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
  sendingStatus: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('blocked')]),
  ),
  ...SenderSettingsInput,
});
export async function updateEnvironment(
  deps: AdminDeps,
  input: Static<typeof UpdateEnvironmentInput>,
  actor: string,
) {
  await requireEnvironment(deps.db, input.id);
  const cols = senderColumns(input);
  const now = deps.clock.now();
  const environment = await deps.db
    .updateTable('environments')
    .set({
      ...cols,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.status !== undefined && { status: input.status }),
      ...(input.sendingStatus !== undefined && { sending_status: input.sendingStatus }),
      updated_at: now,
    })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const { id: _id, ...changes } = input;
  await insertAuditEvent(
    deps.db,
    {
      tenantId: environment.tenant_id,
      actor,
      action: 'environment.updated',
      targetType: 'environment',
      targetId: environment.id,
      details: changes,
    },
    now,
  );
  return { environment: environmentRecord(environment) };
}

export const DeleteEnvironmentInput = DeleteInput('env');
export async function deleteEnvironment(deps: AdminDeps, input: { id: string }, actor: string) {
  await requireEnvironment(deps.db, input.id);
  const now = deps.clock.now();
  const environment = await deps.db
    .updateTable('environments')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    {
      tenantId: environment.tenant_id,
      actor,
      action: 'environment.deleted',
      targetType: 'environment',
      targetId: environment.id,
    },
    now,
  );
  return { environment: environmentRecord(environment) };
}

export const ListEnvironmentsInput = Strict({ project: IdOf('prj') });
export async function listEnvironments(deps: AdminDeps, input: Static<typeof ListEnvironmentsInput>) {
  await requireProject(deps.db, input.project);
  const rows = await deps.db
    .selectFrom('environments')
    .selectAll()
    .where('project_id', '=', input.project)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { environments: rows.map(environmentRecord) };
}
