// The JSON shape of each admin record: camelCase, ISO timestamps, never a secret.
import type { ApiKeyRow } from '../../db/repositories/api-keys.js';
import type { SendingDomainRow } from '../../db/repositories/sending-domains.js';
import type { EnvironmentRow, PlanRow, ProjectRow, TenantRow } from '../../db/repositories/tenancy.js';
import { dkimTxtValue } from '../../delivery/dkim.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const planRecord = (p: PlanRow) => ({
  id: p.id,
  monthlyLimit: p.monthly_limit,
  overageAllowed: p.overage_allowed,
  rateLimitPerSecond: p.rate_limit_per_second,
  rateLimitBurst: p.rate_limit_burst,
  createdAt: iso(p.created_at),
  updatedAt: iso(p.updated_at),
});

export const tenantRecord = (t: TenantRow) => ({
  id: t.id,
  name: t.name,
  planId: t.plan_id,
  accessStatus: t.access_status,
  trialEndsAt: iso(t.trial_ends_at),
  createdAt: iso(t.created_at),
  updatedAt: iso(t.updated_at),
  deletedAt: iso(t.deleted_at),
});

export const projectRecord = (p: ProjectRow) => ({
  id: p.id,
  tenantId: p.tenant_id,
  name: p.name,
  displayName: p.display_name,
  supportEmail: p.support_email,
  brandColor: p.brand_color,
  logoUrl: p.logo_url,
  postalAddress: p.postal_address,
  status: p.status,
  fromEmail: p.from_email,
  fromName: p.from_name,
  replyTo: p.reply_to,
  createdAt: iso(p.created_at),
  updatedAt: iso(p.updated_at),
  deletedAt: iso(p.deleted_at),
});

export const environmentRecord = (e: EnvironmentRow) => ({
  id: e.id,
  tenantId: e.tenant_id,
  projectId: e.project_id,
  name: e.name,
  status: e.status,
  sendingStatus: e.sending_status,
  fromEmail: e.from_email,
  fromName: e.from_name,
  replyTo: e.reply_to,
  createdAt: iso(e.created_at),
  updatedAt: iso(e.updated_at),
  deletedAt: iso(e.deleted_at),
});

export const keyRecord = (k: ApiKeyRow) => ({
  id: k.id,
  tenantId: k.tenant_id,
  environmentId: k.environment_id,
  hint: k.hint,
  scope: k.scope,
  templateCategories: k.template_categories,
  name: k.name,
  status: k.revoked_at ? ('revoked' as const) : ('active' as const),
  createdAt: iso(k.created_at),
  lastUsedAt: iso(k.last_used_at),
  revokedAt: iso(k.revoked_at),
});

export const domainRecord = (d: SendingDomainRow, mxHost: string) => ({
  id: d.id,
  domain: d.domain,
  scope: d.scope,
  tenantId: d.tenant_id,
  projectId: d.project_id,
  environmentId: d.environment_id,
  status: d.status,
  // The DNS record to publish so receivers can verify the DKIM signature; never the private key.
  dkim:
    d.dkim_selector && d.dkim_public_key
      ? {
          selector: d.dkim_selector,
          record: {
            type: 'TXT',
            name: `${d.dkim_selector}._domainkey.${d.domain}`,
            value: dkimTxtValue(d.dkim_public_key),
          },
        }
      : null,
  // Where bounces and complaints for this domain's mail go once it is verified: the envelope
  // sender is bounces+…@bounces.<domain>, so SPF and DMARC align (DESIGN.md §5).
  returnPath: {
    domain: `bounces.${d.domain}`,
    // pending: mail still bounces to MAILSVC_BOUNCE_DOMAIN; verified (admin domains set-return-path).
    status: d.return_path_status,
    record: { type: 'MX', name: `bounces.${d.domain}`, priority: 10, value: mxHost },
  },
  createdAt: iso(d.created_at),
  updatedAt: iso(d.updated_at),
});
