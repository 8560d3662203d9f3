// Plans, tenants, projects and environments as the admin use-cases store them. Tenants, projects
// and environments are soft-deleted: the finders here see only the live ones.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { newId } from '../../ids.js';
import type { Db, EnvironmentsTable, PlansTable, ProjectsTable, TenantsTable } from '../schema.js';
import { inTransaction } from '../transaction.js';

export type PlanRow = Selectable<PlansTable>;
export type TenantRow = Selectable<TenantsTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type EnvironmentRow = Selectable<EnvironmentsTable>;

export function findPlan(db: Db, id: string) {
  return db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findTenant(db: Db, id: string) {
  return db
    .selectFrom('tenants')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findProject(db: Db, id: string) {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findEnvironment(db: Db, id: string) {
  return db
    .selectFrom('environments')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

// ---- plans

/** The new plan, or undefined when one with its id exists. */
export function insertPlan(db: Db, plan: Insertable<PlansTable>) {
  return db
    .insertInto('plans')
    .values(plan)
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The changed plan, or undefined when there is none with `id`. */
export function changePlan(db: Db, id: string, changes: Updateable<PlansTable>) {
  return db.updateTable('plans').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

// ---- tenants

export function insertTenant(db: Db, tenant: Insertable<TenantsTable>) {
  return db.insertInto('tenants').values(tenant).returningAll().executeTakeFirstOrThrow();
}

export function changeTenant(db: Db, id: string, changes: Updateable<TenantsTable>) {
  return db.updateTable('tenants').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function markTenantDeleted(db: Db, id: string, now: Date) {
  return changeTenant(db, id, { deleted_at: now, updated_at: now });
}

/** Oldest first; the deleted ones too when asked. */
export function listTenants(db: Db, q: { includeDeleted: boolean }) {
  let query = db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id');
  if (!q.includeDeleted) query = query.where('deleted_at', 'is', null);
  return query.execute();
}

// ---- projects

export function insertProject(db: Db, project: Insertable<ProjectsTable>) {
  return db.insertInto('projects').values(project).returningAll().executeTakeFirstOrThrow();
}

export function changeProject(db: Db, id: string, changes: Updateable<ProjectsTable>) {
  return db
    .updateTable('projects')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function markProjectDeleted(db: Db, id: string, now: Date) {
  return changeProject(db, id, { deleted_at: now, updated_at: now });
}

/** A tenant's live projects, oldest first. */
export function listProjects(db: Db, tenantId: string) {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

// ---- environments

export function insertEnvironment(db: Db, environment: Insertable<EnvironmentsTable>) {
  return db.insertInto('environments').values(environment).returningAll().executeTakeFirstOrThrow();
}

export function changeEnvironment(db: Db, id: string, changes: Updateable<EnvironmentsTable>) {
  return db
    .updateTable('environments')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function markEnvironmentDeleted(db: Db, id: string, now: Date) {
  return changeEnvironment(db, id, { deleted_at: now, updated_at: now });
}

/** A project's live environments, oldest first. */
export function listEnvironments(db: Db, projectId: string) {
  return db
    .selectFrom('environments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

// ---- the demo scope of `mailsvc start` and `admin bootstrap`

export interface DemoNames {
  planId: string;
  monthlyLimit: number;
  tenantName: string;
  projectName: string;
  supportEmail: string;
  environmentName: string;
}

/**
 * The plan, tenant, project and environment named `demo`, made where missing (the oldest live one
 * of each name is reused), in one transaction; safe to run any number of times.
 */
export function ensureDemoScope(db: Db, demo: DemoNames, now: Date) {
  return inTransaction(db, async (trx) => {
    await trx
      .insertInto('plans')
      .values({
        id: demo.planId,
        monthly_limit: demo.monthlyLimit,
        overage_allowed: false,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    let tenant = await trx
      .selectFrom('tenants')
      .select('id')
      .where('name', '=', demo.tenantName)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    tenant ??= await trx
      .insertInto('tenants')
      .values({
        id: newId('ten'),
        name: demo.tenantName,
        plan_id: demo.planId,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const project = await ensureDemoProject(trx, demo, tenant.id, now);
    const environment = await ensureDemoEnvironment(
      trx,
      demo,
      { tenantId: tenant.id, projectId: project.id },
      now,
    );
    return { tenantId: tenant.id, projectId: project.id, environmentId: environment.id };
  });
}

async function ensureDemoProject(trx: Db, demo: DemoNames, tenantId: string, now: Date) {
  const project = await trx
    .selectFrom('projects')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', demo.projectName)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  return (
    project ??
    trx
      .insertInto('projects')
      .values({
        id: newId('prj'),
        tenant_id: tenantId,
        name: demo.projectName,
        display_name: demo.projectName,
        support_email: demo.supportEmail,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  );
}

async function ensureDemoEnvironment(
  trx: Db,
  demo: DemoNames,
  scope: { tenantId: string; projectId: string },
  now: Date,
) {
  const environment = await trx
    .selectFrom('environments')
    .select('id')
    .where('project_id', '=', scope.projectId)
    .where('name', '=', demo.environmentName)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  return (
    environment ??
    trx
      .insertInto('environments')
      .values({
        id: newId('env'),
        tenant_id: scope.tenantId,
        project_id: scope.projectId,
        name: demo.environmentName,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  );
}
