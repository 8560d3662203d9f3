// What every admin use-case is given, and the lookups of the records they act on: 404 not_found
// for an unknown (or deleted) plan, tenant, project or environment.
import { findEnvironment, findPlan, findProject, findTenant } from '../../db/repositories/tenancy.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { Deps } from '../deps.js';

export type AdminDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

export const notFound = (what: string, id: string) => new ApiError('not_found', `No ${what} ${id}.`);

export async function requirePlan(db: Db, id: string) {
  const plan = await findPlan(db, id);
  if (!plan) throw notFound('plan', id);
  return plan;
}

export async function requireTenant(db: Db, id: string) {
  const t = await findTenant(db, id);
  if (!t) throw notFound('tenant', id);
  return t;
}

export async function requireProject(db: Db, id: string) {
  const p = await findProject(db, id);
  if (!p) throw notFound('project', id);
  return p;
}

export async function requireEnvironment(db: Db, id: string) {
  const e = await findEnvironment(db, id);
  if (!e) throw notFound('environment', id);
  return e;
}
