import { type Static, Type } from '@sinclair/typebox';
import type { Updateable } from 'kysely';
import { insertAuditEvent } from '../../db/repositories/audit.js';
import { readTenantUsage } from '../../db/repositories/usage.js';
import type { SendingDomainsTable } from '../../db/schema.js';
import { generateDkimKeyPair } from '../../delivery/dkim.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { parseDomain } from '../email.js';
import { generateApiKey } from '../keys/api-key.js';
import { usagePeriod } from '../quota/period.js';
import { monthlyStatus } from '../quota/quota-rule.js';
import { domainRecord, keyRecord } from './records.js';
import { IdOf, Month, Strict } from './schemas.js';
import { type AdminDeps, requireEnvironment, requireProject, requireTenant } from './tenancy.js';

// ---- keys

export const CreateKeyInput = Strict({ environment: IdOf('env') });
export async function createKey(deps: AdminDeps, input: Static<typeof CreateKeyInput>, actor: string) {
  const environment = await requireEnvironment(deps.db, input.environment);
  const now = deps.clock.now();
  const key = generateApiKey(now.getTime());
  const row = await deps.db
    .insertInto('api_keys')
    .values({
      id: key.id,
      tenant_id: environment.tenant_id,
      environment_id: environment.id,
      secret_sha256: key.secretSha256,
      hint: key.hint,
      created_at: now,
    })
    .returning(['id', 'tenant_id', 'environment_id', 'hint', 'created_at', 'revoked_at'])
    .executeTakeFirstOrThrow();
  await insertAuditEvent(
    deps.db,
    { tenantId: row.tenant_id, actor, action: 'api_key.created', targetType: 'api_key', targetId: row.id },
    now,
  );
  // The full key is returned here and never again.
  return { key: keyRecord(row), apiKey: key.token };
}

export const RevokeKeyInput = Strict({ id: IdOf('key') });
export async function revokeKey(deps: AdminDeps, input: Static<typeof RevokeKeyInput>, actor: string) {
  const now = deps.clock.now();
  const existing = await deps.db
    .selectFrom('api_keys')
    .select(['revoked_at'])
    .where('id', '=', input.id)
    .executeTakeFirst();
  if (!existing) throw new ApiError('not_found', `No API key ${input.id}.`);
  const row = await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: existing.revoked_at ?? now })
    .where('id', '=', input.id)
    .returning(['id', 'tenant_id', 'environment_id', 'hint', 'created_at', 'revoked_at'])
    .executeTakeFirstOrThrow();
  if (!existing.revoked_at) {
    await insertAuditEvent(
      deps.db,
      { tenantId: row.tenant_id, actor, action: 'api_key.revoked', targetType: 'api_key', targetId: row.id },
      now,
    );
  }
  return { key: keyRecord(row) };
}

export const ListKeysInput = Strict({ environment: IdOf('env') });
export async function listKeys(deps: AdminDeps, input: Static<typeof ListKeysInput>) {
  await requireEnvironment(deps.db, input.environment);
  const rows = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id', 'environment_id', 'hint', 'created_at', 'revoked_at'])
    .where('environment_id', '=', input.environment)
    .orderBy('id')
    .execute();
  return { keys: rows.map(keyRecord) };
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
  const domain = parseDomain(input.domain);
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
  const owners = [input.tenant, input.project, input.environment].filter((v) => v !== undefined);
  if (owners.length !== 1) {
    throw new ApiError('invalid_request', 'Give exactly one of tenant, project or environment.', [
      { path: '/', message: 'exactly one of tenant, project, environment is required' },
    ]);
  }
  let owner: {
    tenant_id: string;
    project_id: string | null;
    environment_id: string | null;
    scope: 'tenant' | 'project' | 'environment';
  };
  if (input.tenant) {
    const t = await requireTenant(deps.db, input.tenant);
    owner = { tenant_id: t.id, project_id: null, environment_id: null, scope: 'tenant' };
  } else if (input.project) {
    const p = await requireProject(deps.db, input.project);
    owner = { tenant_id: p.tenant_id, project_id: p.id, environment_id: null, scope: 'project' };
  } else {
    const e = await requireEnvironment(deps.db, input.environment!);
    owner = { tenant_id: e.tenant_id, project_id: e.project_id, environment_id: e.id, scope: 'environment' };
  }
  const taken = await deps.db
    .selectFrom('sending_domains')
    .select('domain')
    .where('tenant_id', '=', owner.tenant_id)
    .where((eb) =>
      owner.project_id ? eb('project_id', '=', owner.project_id) : eb('project_id', 'is', null),
    )
    .where((eb) =>
      owner.environment_id
        ? eb('environment_id', '=', owner.environment_id)
        : eb('environment_id', 'is', null),
    )
    .executeTakeFirst();
  if (taken) {
    throw new ApiError('conflict', `This ${owner.scope} already has the sending domain ${taken.domain}.`);
  }
  const now = deps.clock.now();
  const dkim = generateDkimKeyPair(now);
  const row = await deps.db
    .insertInto('sending_domains')
    .values({
      id: newId('dom', now.getTime()),
      domain,
      ...owner,
      status: 'pending',
      dkim_selector: dkim.selector,
      dkim_private_key: dkim.privateKeyPem,
      dkim_public_key: dkim.publicKeyPem,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('domain').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ApiError('conflict', `The domain ${domain} is already registered.`);
  await insertAuditEvent(
    deps.db,
    {
      tenantId: row.tenant_id,
      actor,
      action: 'domain.added',
      targetType: 'sending_domain',
      targetId: row.id,
      details: { domain },
    },
    now,
  );
  return { domain: domainRecord(row, deps.config.MAILSVC_INBOUND_MX_HOST) };
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
  change: Pick<Updateable<SendingDomainsTable>, 'status' | 'return_path_status'>,
  action: string,
  details: Record<string, unknown>,
) {
  const domain = parseDomain(name) ?? name;
  const now = deps.clock.now();
  const row = await deps.db
    .updateTable('sending_domains')
    .set({ ...change, updated_at: now })
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ApiError('not_found', `No sending domain ${domain}.`);
  await insertAuditEvent(
    deps.db,
    {
      tenantId: row.tenant_id,
      actor,
      action,
      targetType: 'sending_domain',
      targetId: row.id,
      details: { domain, ...details },
    },
    now,
  );
  return { domain: domainRecord(row, deps.config.MAILSVC_INBOUND_MX_HOST) };
}

export const ListDomainsInput = Strict({ tenant: Type.Optional(IdOf('ten')) });
export async function listDomains(deps: AdminDeps, input: Static<typeof ListDomainsInput>) {
  let q = deps.db.selectFrom('sending_domains').selectAll().orderBy('domain');
  if (input.tenant) q = q.where('tenant_id', '=', input.tenant);
  return { domains: (await q.execute()).map((d) => domainRecord(d, deps.config.MAILSVC_INBOUND_MX_HOST)) };
}

// ---- usage

export const ShowUsageInput = Strict({
  tenant: IdOf('ten'),
  period: Type.Optional(Month),
});
export async function showUsage(deps: AdminDeps, input: Static<typeof ShowUsageInput>) {
  const tenant = await requireTenant(deps.db, input.tenant);
  const plan = await deps.db
    .selectFrom('plans')
    .selectAll()
    .where('id', '=', tenant.plan_id)
    .executeTakeFirstOrThrow();
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
