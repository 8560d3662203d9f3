// Admin use-cases for tenants, projects and environments (plans: plans.ts). Each is served twice:
// by the CLI against the database and by the api process at /admin/v1/… (see domain/admin/index.ts).
import { type Static, Type } from '@sinclair/typebox';
import { type AuditEvent, auditedChange } from '../../db/repositories/audit.js';
import {
  changeEnvironment,
  changeProject,
  changeTenant,
  insertEnvironment,
  insertProject,
  insertTenant,
  listEnvironments as listEnvironmentRows,
  listProjects as listProjectRows,
  listTenants as listTenantRows,
  markEnvironmentDeleted,
  markProjectDeleted,
  markTenantDeleted,
} from '../../db/repositories/tenancy.js';
import { newId } from '../../ids.js';
import { parseTimestamp } from '../timestamp.js';
import {
  LOGO_URL_MAX_LENGTH,
  MIN_BUTTON_CONTRAST,
  POSTAL_ADDRESS_MAX_LENGTH,
  POSTAL_ADDRESS_MAX_LINES,
} from './brand.js';
import { environmentRecord, projectRecord, tenantRecord } from './records.js';
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
import { type AdminDeps, requireEnvironment, requirePlan, requireProject, requireTenant } from './scope.js';
import { projectColumns, senderColumns } from './sender-settings.js';

export type { AdminDeps } from './scope.js';

type Kind = 'tenant' | 'project' | 'environment';

/** The audit event of a change to a tenant, project or environment, under its tenant. */
const audited =
  (kind: Kind, verb: 'created' | 'updated' | 'deleted', actor: string, details?: Record<string, unknown>) =>
  (row: { id: string; tenant_id?: string }): AuditEvent => ({
    tenantId: row.tenant_id ?? row.id,
    actor,
    action: `${kind}.${verb}`,
    targetType: kind,
    targetId: row.id,
    ...(details && { details }),
  });

/** What an update changed: its input without the id. */
const changesOf = ({ id: _id, ...changes }: { id: string } & Record<string, unknown>) => changes;

export const DeleteInput = (prefix: AdminIdPrefix) => Strict({ id: IdOf(prefix) });

// ---- tenants

export const CreateTenantInput = Strict({ name: Name, plan: PlanId, trialEndsAt: Type.Optional(Timestamp) });
export async function createTenant(deps: AdminDeps, input: Static<typeof CreateTenantInput>, actor: string) {
  await requirePlan(deps.db, input.plan);
  const now = deps.clock.now();
  const tenant = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertTenant(trx, {
        id: newId('ten', now.getTime()),
        name: input.name,
        plan_id: input.plan,
        access_status: input.trialEndsAt ? 'trialing' : 'active',
        trial_ends_at: input.trialEndsAt ? parseTimestamp(input.trialEndsAt) : null,
        created_at: now,
        updated_at: now,
      }),
    audited('tenant', 'created', actor),
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
  const tenant = await auditedChange(
    deps.db,
    now,
    (trx) =>
      changeTenant(trx, input.id, {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.plan !== undefined && { plan_id: input.plan }),
        ...(input.accessStatus !== undefined && { access_status: input.accessStatus }),
        ...(input.trialEndsAt !== undefined && {
          trial_ends_at: input.trialEndsAt === '' ? null : parseTimestamp(input.trialEndsAt),
        }),
        updated_at: now,
      }),
    audited('tenant', 'updated', actor, changesOf(input)),
  );
  return { tenant: tenantRecord(tenant) };
}

export const DeleteTenantInput = DeleteInput('ten');
export async function deleteTenant(deps: AdminDeps, input: { id: string }, actor: string) {
  await requireTenant(deps.db, input.id);
  const now = deps.clock.now();
  const tenant = await auditedChange(
    deps.db,
    now,
    (trx) => markTenantDeleted(trx, input.id, now),
    audited('tenant', 'deleted', actor),
  );
  return { tenant: tenantRecord(tenant) };
}

export const ListTenantsInput = Strict({
  includeDeleted: Type.Optional(Type.Boolean({ description: 'also the deleted tenants' })),
});
export async function listTenants(deps: AdminDeps, input: Static<typeof ListTenantsInput>) {
  const rows = await listTenantRows(deps.db, { includeDeleted: input.includeDeleted === true });
  return { tenants: rows.map(tenantRecord) };
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

export const CreateProjectInput = Strict({ tenant: IdOf('ten'), name: Name, ...ProjectSettings });
export async function createProject(
  deps: AdminDeps,
  input: Static<typeof CreateProjectInput>,
  actor: string,
) {
  await requireTenant(deps.db, input.tenant);
  const cols = projectColumns(input);
  const now = deps.clock.now();
  const project = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertProject(trx, {
        id: newId('prj', now.getTime()),
        tenant_id: input.tenant,
        name: input.name,
        created_at: now,
        updated_at: now,
        ...cols,
      }),
    audited('project', 'created', actor),
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
  const project = await auditedChange(
    deps.db,
    now,
    (trx) =>
      changeProject(trx, input.id, {
        ...cols,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.status !== undefined && { status: input.status }),
        updated_at: now,
      }),
    audited('project', 'updated', actor, changesOf(input)),
  );
  return { project: projectRecord(project) };
}

export const DeleteProjectInput = DeleteInput('prj');
export async function deleteProject(deps: AdminDeps, input: { id: string }, actor: string) {
  await requireProject(deps.db, input.id);
  const now = deps.clock.now();
  const project = await auditedChange(
    deps.db,
    now,
    (trx) => markProjectDeleted(trx, input.id, now),
    audited('project', 'deleted', actor),
  );
  return { project: projectRecord(project) };
}

export const ListProjectsInput = Strict({ tenant: IdOf('ten') });
export async function listProjects(deps: AdminDeps, input: Static<typeof ListProjectsInput>) {
  await requireTenant(deps.db, input.tenant);
  return { projects: (await listProjectRows(deps.db, input.tenant)).map(projectRecord) };
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
  const environment = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertEnvironment(trx, {
        id: newId('env', now.getTime()),
        tenant_id: project.tenant_id,
        project_id: project.id,
        name: input.name,
        created_at: now,
        updated_at: now,
        ...cols,
      }),
    audited('environment', 'created', actor),
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
  const environment = await auditedChange(
    deps.db,
    now,
    (trx) =>
      changeEnvironment(trx, input.id, {
        ...cols,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.status !== undefined && { status: input.status }),
        ...(input.sendingStatus !== undefined && { sending_status: input.sendingStatus }),
        updated_at: now,
      }),
    audited('environment', 'updated', actor, changesOf(input)),
  );
  return { environment: environmentRecord(environment) };
}

export const DeleteEnvironmentInput = DeleteInput('env');
export async function deleteEnvironment(deps: AdminDeps, input: { id: string }, actor: string) {
  await requireEnvironment(deps.db, input.id);
  const now = deps.clock.now();
  const environment = await auditedChange(
    deps.db,
    now,
    (trx) => markEnvironmentDeleted(trx, input.id, now),
    audited('environment', 'deleted', actor),
  );
  return { environment: environmentRecord(environment) };
}

export const ListEnvironmentsInput = Strict({ project: IdOf('prj') });
export async function listEnvironments(deps: AdminDeps, input: Static<typeof ListEnvironmentsInput>) {
  await requireProject(deps.db, input.project);
  return { environments: (await listEnvironmentRows(deps.db, input.project)).map(environmentRecord) };
}
