// The admin API (POST /admin/v1/<group>/<action>) for the operator area, with the admin token held
// in this module's memory only: never in storage or a cookie, gone on reload or "Forget token".
import { ConsoleApiError, type Member } from '../api.js';

export interface Tenant {
  id: string;
  name: string;
  planId: string;
  accessStatus: 'active' | 'trialing' | 'suspended';
  trialEndsAt: string | null;
  createdAt: string;
}
export interface Plan {
  id: string;
  monthlyLimit: number;
  overageAllowed: boolean;
  rateLimitPerSecond?: number;
  rateLimitBurst?: number;
}
export interface AdminProject {
  id: string;
  tenantId: string;
  name: string;
  status: string;
  createdAt: string;
}
export interface AdminEnvironment {
  id: string;
  projectId: string;
  name: string;
  status: string;
  sendingStatus: string;
  createdAt: string;
}
export interface Usage {
  tenantId: string;
  period: string;
  planId: string;
  limit: number;
  used: number;
  overageAllowed: boolean;
  overageEmails: number;
  status: string;
  environments: { environmentId: string; used: number }[];
}

let heldToken = '';

export const adminToken = (): string => heldToken;
export function holdAdminToken(token: string): void {
  heldToken = token;
}
export function forgetAdminToken(): void {
  heldToken = '';
}

interface ErrorEnvelope {
  ok?: boolean;
  error?: { code?: string; message?: string; details?: { path?: string; message?: string }[] };
}

/** The envelope's message, with the field problems of a refused input after it. */
function wordError(body: ErrorEnvelope | undefined, status: number): ConsoleApiError {
  const error = body?.error;
  const problems = (error?.details ?? [])
    .map((d) => `${(d.path ?? '').replace(/^\//, '') || 'input'}: ${d.message ?? 'is invalid'}`)
    .join('; ');
  const message = error?.message ?? `The server answered ${status}.`;
  return new ConsoleApiError(
    error?.code ?? 'invalid_response',
    problems ? `${message} ${problems}` : message,
    status,
  );
}

/** Runs the admin command `name` ('tenants.list' → /admin/v1/tenants/list) with `input`. */
export async function adminCall<T>(
  name: string,
  input: Record<string, unknown> = {},
  token: string = heldToken,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/admin/v1/${name.replace('.', '/')}`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(input),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ConsoleApiError('network_error', 'Could not reach the server. Check your connection.', 0);
  }
  let body: ErrorEnvelope | undefined;
  try {
    body = (await res.json()) as ErrorEnvelope;
  } catch {
    body = undefined;
  }
  if (res.ok && body?.ok === true) return body as T;
  if (res.status === 404 && body?.error?.code === 'not_found' && body.error.message?.startsWith('No route'))
    throw new ConsoleApiError(
      'admin_api_off',
      'The admin API is off on this server: it was started without an admin token.',
      404,
    );
  throw wordError(body, res.status);
}

export const admin = {
  /** With `token`: checks a token not held yet. */
  tenants: (token?: string) => adminCall<{ tenants: Tenant[] }>('tenants.list', {}, token),
  createTenant: (name: string, plan: string) =>
    adminCall<{ tenant: Tenant }>('tenants.create', { name, plan }),
  plans: () => adminCall<{ plans: Plan[] }>('plans.list', {}),
  createPlan: (id: string, monthlyLimit: number, overageAllowed: boolean) =>
    adminCall<{ plan: Plan }>('plans.create', { id, monthlyLimit, overageAllowed }),
  projects: (tenant: string) => adminCall<{ projects: AdminProject[] }>('projects.list', { tenant }),
  createProject: (tenant: string, name: string) =>
    adminCall<{ project: AdminProject }>('projects.create', { tenant, name }),
  environments: (project: string) =>
    adminCall<{ environments: AdminEnvironment[] }>('environments.list', { project }),
  createEnvironment: (project: string, name: string) =>
    adminCall<{ environment: AdminEnvironment }>('environments.create', { project, name }),
  usage: (tenant: string) => adminCall<{ usage: Usage }>('usage.show', { tenant }),
  members: (tenant: string) => adminCall<{ members: Member[] }>('members.list', { tenant }),
  invite: (tenant: string, email: string, role: Member['role']) =>
    adminCall<{ member: Member }>('members.invite', { tenant, email, role }),
};
