import { KeyScopeSchema, TemplateCategories } from '@mailsvc/contract/api';
import { type Static, Type } from '@sinclair/typebox';
import { isUniqueViolation } from '../../db/errors.js';
import { findKeyRevocation, listApiKeys } from '../../db/repositories/api-keys.js';
import { auditedChange } from '../../db/repositories/audit.js';
import {
  type DomainOwner,
  findDomainsByNameOrId,
  insertSendingDomain,
  listSendingDomains,
  type SendingDomainRow,
  type SendingDomainUpdate,
  updateSendingDomain,
} from '../../db/repositories/sending-domains.js';
import { findPlan } from '../../db/repositories/tenancy.js';
import { readTenantUsage } from '../../db/repositories/usage.js';
import { generateDkimKeyPair } from '../../delivery/dkim.js';
import { queueDomainEvent } from '../../domains/domain-events.js';
import { ApiError } from '../../errors.js';
import { checkDomainName } from '../domains/domain-name.js';
import { checkNewClaim, newDomainRow, statusCheckAt } from '../domains/new-domain.js';
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
  const now = deps.clock.now();
  const dkim = generateDkimKeyPair(now);
  const row = await auditedChange(
    deps.db,
    now,
    async (trx) => {
      await checkNewClaim(trx, owner, domain);
      return insertSendingDomain(trx, newDomainRow(owner, domain, dkim, now));
    },
    (row) => ({
      tenantId: row.tenant_id,
      environmentId: row.environment_id,
      actor,
      action: 'domain.added',
      targetType: 'sending_domain',
      targetId: row.id,
      details: { domain },
    }),
  );
  return { domain: domainRecord(row, deps.config.MAILSVC_INBOUND_MX_HOST) };
}

/** The domain name, normalised; refused when it is not one or is the service's own. */
function registrableDomain(deps: AdminDeps, name: string): string {
  return checkDomainName(deps.config, name);
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

const DomainRef = Type.String({
  minLength: 3,
  maxLength: 253,
  description: 'the domain name, or its id (dom_…) when several tenants claim the name',
});

export const SetDomainStatusInput = Strict({
  domain: DomainRef,
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
});
/**
 * The operator's override of the domain checker (audited): the status is set as if a check had
 * led there, and the checker goes on from it (verified: re-checked in a day).
 */
export async function setDomainStatus(
  deps: AdminDeps,
  input: Static<typeof SetDomainStatusInput>,
  actor: string,
) {
  const now = deps.clock.now();
  return changeDomain(
    deps,
    input.domain,
    actor,
    'domain.status_changed',
    { status: input.status },
    (row) => ({
      status: input.status,
      status_since: now,
      bad_checks: 0,
      verified_at: input.status === 'verified' ? now : row.verified_at,
      next_check_at: statusCheckAt(input.status, now),
      // a check in flight finds its claim gone and writes nothing over the override
      check_locked_until: null,
      check_claim_token: null,
    }),
  );
}

export const SetReturnPathInput = Strict({
  domain: DomainRef,
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified')], {
    description:
      'the override of the checker: verified once bounces.<domain> has its MX (to mailsvc inbound) and SPF published',
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
    'domain.return_path_changed',
    { returnPathStatus: input.status },
    () => ({ return_path_status: input.status, return_path_bad_checks: 0 }),
  );
}

/** One audited change of a sending domain; 404 for an unknown one, 409 for an ambiguous name. */
async function changeDomain(
  deps: AdminDeps,
  ref: string,
  actor: string,
  action: string,
  details: Record<string, unknown>,
  change: (row: SendingDomainRow) => SendingDomainUpdate,
) {
  const nameOrId = ref.startsWith('dom_') ? ref : (parseDomain(ref) ?? ref);
  const rows = await findDomainsByNameOrId(deps.db, nameOrId);
  if (rows.length === 0) throw new ApiError('not_found', `No sending domain ${nameOrId}.`);
  if (rows.length > 1)
    throw new ApiError(
      'conflict',
      `${rows.length} tenants claim ${nameOrId}; give the domain's id instead (${rows.map((r) => r.id).join(', ')}).`,
    );
  const now = deps.clock.now();
  const row = await auditedChange(
    deps.db,
    now,
    async (trx) => {
      try {
        const after = await updateSendingDomain(trx, rows[0]!.id, { ...change(rows[0]!), updated_at: now });
        // the app hears of a status the operator set as of one a check led to
        if (after && after.status !== rows[0]!.status && after.status !== 'pending')
          await queueDomainEvent(
            trx,
            after,
            `domain.${after.status}`,
            { previousStatus: rows[0]!.status, records: [] },
            now,
          );
        return after;
      } catch (err) {
        if (isUniqueViolation(err))
          throw new ApiError(
            'conflict',
            `Another tenant has ${rows[0]!.domain} verified; one owner at a time.`,
          );
        throw err;
      }
    },
    (row) =>
      row
        ? {
            tenantId: row.tenant_id,
            environmentId: row.environment_id,
            actor,
            action,
            targetType: 'sending_domain',
            targetId: row.id,
            details: { domain: row.domain, ...details },
          }
        : null,
  );
  if (!row) throw new ApiError('not_found', `No sending domain ${nameOrId}.`);
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
