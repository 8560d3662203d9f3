import { KeyScopeSchema, TemplateCategories } from '@mailsvc/contract/api';
import { type Static, Type } from '@sinclair/typebox';
import { findKeyRevocation, listApiKeys } from '../../db/repositories/api-keys.js';
import { auditedChange } from '../../db/repositories/audit.js';
import {
  changeSendingDomain,
  type DomainOwner,
  findDomainOfOwner,
  insertSendingDomain,
  listSendingDomains,
  type SendingDomainChange,
} from '../../db/repositories/sending-domains.js';
import { findPlan } from '../../db/repositories/tenancy.js';
import { readTenantUsage } from '../../db/repositories/usage.js';
import { generateDkimKeyPair } from '../../delivery/dkim.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { parseDomain } from '../email.js';
import { issueKey, withdrawKey } from '../keys/manage-keys.js';
import { usagePeriod } from '../quota/period.js';
import { monthlyStatus } from '../quota/quota-rule.js';
import { domainRecord, keyRecord } from './records.js';
import { IdOf, Month, Name, Strict } from './schemas.js';
import { type AdminDeps, notFound, requireEnvironment, requireProject, requireTenant } from './scope.js';

// ---- keys

export const CreateKeyInput = Strict({
  environment: IdOf('env'),
  scope: Type.Optional(KeyScopeSchema),
  templateCategories: Type.Optional(
    Type.Unsafe<Static<typeof TemplateCategories>>({
      ...TemplateCategories,
      description: 'send keys only: the template categories it may send',
    }),
  ),
  name: Type.Optional(Name),
});
export async function createKey(deps: AdminDeps, input: Static<typeof CreateKeyInput>, actor: string) {
  const environment = await requireEnvironment(deps.db, input.environment);
  const { row, token } = await issueKey(
    deps.db,
    deps.clock.now(),
    { tenantId: environment.tenant_id, environmentId: environment.id },
    {
      scope: input.scope ?? 'full',
      templateCategories: input.templateCategories ?? null,
      name: input.name ?? null,
    },
    actor,
  );
  // The full key is returned here and never again.
  return { key: keyRecord(row), apiKey: token };
}

export const RevokeKeyInput = Strict({ id: IdOf('key') });
export async function revokeKey(deps: AdminDeps, input: Static<typeof RevokeKeyInput>, actor: string) {
  const existing = await findKeyRevocation(deps.db, input.id);
  if (!existing) throw new ApiError('not_found', `No API key ${input.id}.`);
  return {
    key: keyRecord(await withdrawKey(deps.db, deps.clock.now(), { id: input.id, ...existing }, actor)),
  };
}

export const ListKeysInput = Strict({ environment: IdOf('env') });
export async function listKeys(deps: AdminDeps, input: Static<typeof ListKeysInput>) {
  await requireEnvironment(deps.db, input.environment);
  return { keys: (await listApiKeys(deps.db, input.environment)).map(keyRecord) };
}

// ---- sending domains

const DomainName = Type.String({ minLength: 3, maxLength: 253 });

export const AddDomainInput = Strict({
  domain: DomainName,
  tenant: Type.Optional(IdOf('ten')),
  project: Type.Optional(IdOf('prj')),
  environment: Type.Optional(IdOf('env')),
});
export async function addDomain(deps: AdminDeps, input: Static<typeof AddDomainInput>, actor: string) {
  const domain = registrableDomain(deps, input.domain);
  const owner = await domainOwner(deps, input);
  const taken = await findDomainOfOwner(deps.db, owner);
  if (taken) {
    throw new ApiError('conflict', `This ${owner.scope} already has the sending domain ${taken.domain}.`);
  }
  const now = deps.clock.now();
  const dkim = generateDkimKeyPair(now);
  const row = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertSendingDomain(trx, {
        id: newId('dom', now.getTime()),
        domain,
        ...owner,
        status: 'pending',
        dkim_selector: dkim.selector,
        dkim_private_key: dkim.privateKeyPem,
        dkim_public_key: dkim.publicKeyPem,
        created_at: now,
        updated_at: now,
      }),
    (row) =>
      row
        ? {
            tenantId: row.tenant_id,
            actor,
            action: 'domain.added',
            targetType: 'sending_domain',
            targetId: row.id,
            details: { domain },
          }
        : null,
  );
  if (!row) throw new ApiError('conflict', `The domain ${domain} is already registered.`);
  return { domain: domainRecord(row, deps.config.MAILSVC_INBOUND_MX_HOST) };
}

/** The domain name, normalised; refused when it is not one or is the service's own. */
function registrableDomain(deps: AdminDeps, name: string): string {
  const domain = parseDomain(name);
  if (!domain) {
    throw new ApiError('invalid_request', 'Not a domain name.', [
      { path: '/domain', message: 'must be a domain such as mail.example.com' },
    ]);
  }
  // The service's own domains sign and receive everyone's mail: a tenant registering one (or a
  // subdomain) would sign other tenants' default-domain mail with its key.
  for (const reserved of new Set([
    deps.config.MAILSVC_DEFAULT_SENDING_DOMAIN,
    deps.config.MAILSVC_BOUNCE_DOMAIN,
  ])) {
    if (domain === reserved || domain.endsWith(`.${reserved}`)) {
      throw new ApiError('invalid_request', `${domain} belongs to the service and cannot be registered.`, [
        { path: '/domain', message: `must not be ${reserved} or one of its subdomains (the service's own)` },
      ]);
    }
  }
  return domain;
}

/** The one tenant, project or environment the domain is for; 404 for an unknown one. */
async function domainOwner(
  deps: AdminDeps,
  input: { tenant?: string; project?: string; environment?: string },
): Promise<DomainOwner> {
  const owners = [input.tenant, input.project, input.environment].filter((v) => v !== undefined);
  if (owners.length !== 1) {
    throw new ApiError('invalid_request', 'Give exactly one of tenant, project or environment.', [
      { path: '/', message: 'exactly one of tenant, project, environment is required' },
    ]);
  }
  if (input.tenant) {
    const t = await requireTenant(deps.db, input.tenant);
    return { tenant_id: t.id, project_id: null, environment_id: null, scope: 'tenant' };
  }
  if (input.project) {
    const p = await requireProject(deps.db, input.project);
    return { tenant_id: p.tenant_id, project_id: p.id, environment_id: null, scope: 'project' };
  }
  const e = await requireEnvironment(deps.db, input.environment!);
  return { tenant_id: e.tenant_id, project_id: e.project_id, environment_id: e.id, scope: 'environment' };
}

export const SetDomainStatusInput = Strict({
  domain: DomainName,
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
});
export async function setDomainStatus(
  deps: AdminDeps,
  input: Static<typeof SetDomainStatusInput>,
  actor: string,
) {
  return changeDomain(deps, input.domain, actor, { status: input.status }, 'domain.status_changed', {
    status: input.status,
  });
}

export const SetReturnPathInput = Strict({
  domain: DomainName,
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified')], {
    description: 'verified once bounces.<domain> has its MX (to mailsvc inbound) and SPF published',
  }),
});
export async function setReturnPath(
  deps: AdminDeps,
  input: Static<typeof SetReturnPathInput>,
  actor: string,
) {
  return changeDomain(
    deps,
    input.domain,
    actor,
    { return_path_status: input.status },
    'domain.return_path_changed',
    { returnPathStatus: input.status },
  );
}

/** One audited change of a sending domain's columns; 404 not_found for an unknown domain. */
async function changeDomain(
  deps: AdminDeps,
  name: string,
  actor: string,
  change: SendingDomainChange,
  action: string,
  details: Record<string, unknown>,
) {
  const domain = parseDomain(name) ?? name;
  const now = deps.clock.now();
  const row = await auditedChange(
    deps.db,
    now,
    (trx) => changeSendingDomain(trx, domain, change, now),
    (row) =>
      row
        ? {
            tenantId: row.tenant_id,
            actor,
            action,
            targetType: 'sending_domain',
            targetId: row.id,
            details: { domain, ...details },
          }
        : null,
  );
  if (!row) throw new ApiError('not_found', `No sending domain ${domain}.`);
  return { domain: domainRecord(row, deps.config.MAILSVC_INBOUND_MX_HOST) };
}

export const ListDomainsInput = Strict({ tenant: Type.Optional(IdOf('ten')) });
export async function listDomains(deps: AdminDeps, input: Static<typeof ListDomainsInput>) {
  const rows = await listSendingDomains(deps.db, { tenantId: input.tenant });
  return { domains: rows.map((d) => domainRecord(d, deps.config.MAILSVC_INBOUND_MX_HOST)) };
}

// ---- usage

export const ShowUsageInput = Strict({
  tenant: IdOf('ten'),
  period: Type.Optional(Month),
});
export async function showUsage(deps: AdminDeps, input: Static<typeof ShowUsageInput>) {
  const tenant = await requireTenant(deps.db, input.tenant);
  // A tenant's plan always exists (tenants.plan_id references plans).
  const plan = await findPlan(deps.db, tenant.plan_id);
  if (!plan) throw notFound('plan', tenant.plan_id);
  const period = input.period ?? usagePeriod(deps.clock.now()).id;
  const usage = await readTenantUsage(deps.db, tenant.id, period);
  return {
    usage: {
      tenantId: tenant.id,
      period,
      planId: plan.id,
      limit: plan.monthly_limit,
      used: usage.sent,
      overageAllowed: plan.overage_allowed,
      overageEmails: Math.max(0, usage.sent - plan.monthly_limit),
      status: monthlyStatus(usage.sent, plan.monthly_limit, plan.overage_allowed),
      environments: usage.environments.map((e) => ({ environmentId: e.environmentId, used: e.sent })),
    },
  };
}
