import { Type } from '@sinclair/typebox';
import { newId } from '../../ids.js';
import { createKey } from './keys-domains-usage.js';
import { Strict } from './schemas.js';
import type { AdminDeps } from './tenancy.js';

export const DEMO = {
  planId: 'demo',
  monthlyLimit: 3000,
  tenantName: 'Demo',
  projectName: 'Demo App',
  supportEmail: 'support@example.com',
  environmentName: 'development',
} as const;

export interface DemoScope {
  tenantId: string;
  projectId: string;
  environmentId: string;
}

/** Ensures the demo plan, tenant, project and environment exist; safe to run any number of times. */
export async function ensureDemo(deps: AdminDeps): Promise<DemoScope> {
  // Inside an admin command's transaction already, or a transaction of its own.
  const inTransaction = <T>(fn: (trx: AdminDeps['db']) => Promise<T>) =>
    deps.db.isTransaction ? fn(deps.db) : deps.db.transaction().execute(fn);
  return inTransaction(async (trx) => {
    const now = deps.clock.now();
    await trx
      .insertInto('plans')
      .values({
        id: DEMO.planId,
        monthly_limit: DEMO.monthlyLimit,
        overage_allowed: false,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    let tenant = await trx
      .selectFrom('tenants')
      .select('id')
      .where('name', '=', DEMO.tenantName)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    tenant ??= await trx
      .insertInto('tenants')
      .values({
        id: newId('ten'),
        name: DEMO.tenantName,
        plan_id: DEMO.planId,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    let project = await trx
      .selectFrom('projects')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .where('name', '=', DEMO.projectName)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    project ??= await trx
      .insertInto('projects')
      .values({
        id: newId('prj'),
        tenant_id: tenant.id,
        name: DEMO.projectName,
        display_name: DEMO.projectName,
        support_email: DEMO.supportEmail,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    let environment = await trx
      .selectFrom('environments')
      .select('id')
      .where('project_id', '=', project.id)
      .where('name', '=', DEMO.environmentName)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    environment ??= await trx
      .insertInto('environments')
      .values({
        id: newId('env'),
        tenant_id: tenant.id,
        project_id: project.id,
        name: DEMO.environmentName,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { tenantId: tenant.id, projectId: project.id, environmentId: environment.id };
  });
}

export const BootstrapInput = Strict({});
export async function bootstrap(deps: AdminDeps, _input: Record<string, never>, actor: string) {
  const scope = await ensureDemo(deps);
  const { apiKey } = await createKey(deps, { environment: scope.environmentId }, actor);
  return { ...scope, apiKey };
}

export const NoInput = Type.Object({}, { additionalProperties: false });
