import { Type } from '@sinclair/typebox';
import { ensureDemoScope } from '../../db/repositories/tenancy.js';
import { createKey } from './keys-domains-usage.js';
import { Strict } from './schemas.js';
import type { AdminDeps } from './scope.js';

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
export function ensureDemo(deps: AdminDeps): Promise<DemoScope> {
  return ensureDemoScope(deps.db, DEMO, deps.clock.now());
}

export const BootstrapInput = Strict({});
export async function bootstrap(deps: AdminDeps, _input: Record<string, never>, actor: string) {
  const scope = await ensureDemo(deps);
  const { apiKey } = await createKey(deps, { environment: scope.environmentId }, actor);
  return { ...scope, apiKey };
}

export const NoInput = Type.Object({}, { additionalProperties: false });
