// What a sending domain's transitions leave behind (DESIGN.md §13): an audit event for every
// change the checker or a person made, and the domain.verified|degraded|failed webhook event to
// every live environment that sends from the domain (its own, its project's, its tenant's).

import { insertAuditEvent } from '../db/repositories/audit.js';
import type { SendingDomainRow } from '../db/repositories/sending-domains.js';
import { environmentsOfDomain } from '../db/repositories/sending-domains.js';
import { queueWebhookEvents } from '../db/repositories/webhook-queue.js';
import type { Db } from '../db/schema.js';
import { notifyTeam } from '../domain/console/notify-team.js';
import type { Deps } from '../domain/deps.js';
import { newId } from '../ids.js';
import type { RecordCheck } from './dns-check.js';
import type { LifecycleStep } from './lifecycle.js';

const CHECKER_ACTOR = 'system:domain-checker';

/** An audit event of the domain checker about `d` (its name always in the details). */
export function auditByChecker(
  db: Db,
  d: SendingDomainRow,
  action: string,
  details: Record<string, unknown>,
  now: Date,
): Promise<void> {
  return insertAuditEvent(
    db,
    {
      tenantId: d.tenant_id,
      environmentId: d.environment_id,
      actor: CHECKER_ACTOR,
      action,
      targetType: 'sending_domain',
      targetId: d.id,
      details: { domain: d.domain, ...details },
    },
    now,
  );
}

/** What a DKIM check was of: the signing key, a rotation's next one, or the retiring one. */
function purposeOf(r: RecordCheck, d: Pick<SendingDomainRow, 'dkim_selector' | 'dkim_next_selector'>) {
  if (r.purpose !== 'dkim') return r.purpose;
  if (r.selector === d.dkim_selector) return 'dkim';
  return r.selector === d.dkim_next_selector ? 'dkim_next' : 'dkim_retiring';
}

/** The required records that are not verified, as the events and audit details name them. */
export function failingRecords(
  records: RecordCheck[],
  d: Pick<SendingDomainRow, 'dkim_selector' | 'dkim_next_selector'>,
) {
  return records
    .map((r) => ({ r, purpose: purposeOf(r, d) }))
    .filter(({ r, purpose }) => r.state !== 'verified' && purpose !== 'dmarc' && purpose !== 'dkim_retiring')
    .map(({ r, purpose }) => ({
      purpose,
      host: r.host,
      type: r.type,
      state: r.state,
      problems: r.problems.map((p) => p.code),
    }));
}

/** Queues `type` for every environment the domain sends for. */
export async function queueDomainEvent(
  db: Db,
  d: SendingDomainRow,
  type: 'domain.verified' | 'domain.degraded' | 'domain.failed',
  data: { previousStatus: string; records: ReturnType<typeof failingRecords> },
  now: Date,
): Promise<void> {
  const environments = await environmentsOfDomain(db, d);
  await queueWebhookEvents(
    db,
    environments.map((environmentId) => ({
      id: newId('evt', now.getTime()),
      tenantId: d.tenant_id,
      environmentId,
      type,
      data: {
        domainId: d.id,
        domain: d.domain,
        status: type.slice('domain.'.length),
        previousStatus: data.previousStatus,
        records: data.records,
        occurredAt: now.toISOString(),
      },
      createdAt: now,
    })),
  );
}

/** The audit and webhook events of one check's step (nothing when nothing changed). */
export async function reportDomainTransition(
  db: Db,
  before: SendingDomainRow,
  after: SendingDomainRow,
  step: LifecycleStep,
  records: RecordCheck[],
  now: Date,
): Promise<void> {
  const audit = (action: string, details: Record<string, unknown>) =>
    auditByChecker(db, before, action, details, now);
  const failing = failingRecords(records, before);
  if (step.transition) {
    await audit(`domain.${step.transition}`, { previousStatus: before.status, records: failing });
    await queueDomainEvent(
      db,
      after,
      `domain.${step.transition}`,
      { previousStatus: before.status, records: step.transition === 'verified' ? [] : failing },
      now,
    );
  }
  if (step.returnPathTransition)
    await audit(`domain.return_path_${step.returnPathTransition}`, {
      previousStatus: before.return_path_status,
      records: failing.filter((r) => r.purpose.startsWith('return_path')),
    });
  if (step.promoteNextKey)
    await audit('domain.dkim_rotated', {
      selector: after.dkim_selector,
      retiringSelector: before.dkim_selector,
      removableAt: after.dkim_old_until?.toISOString() ?? null,
    });
}

/**
 * The tenant's owners and admins learn that a domain degraded (mail still goes; it fails after the
 * grace unless the records are fixed) or failed (mail from it is refused), once per transition.
 */
export function mailTeamOfDomain(
  deps: Deps,
  d: SendingDomainRow,
  transition: 'degraded' | 'failed',
  failing: ReturnType<typeof failingRecords>,
): Promise<number> {
  const records = failing.map((r) => `${r.type} ${r.host}: ${r.state}`).join('; ') || 'a required record';
  const graceHours = deps.config.MAILSVC_DOMAIN_GRACE_HOURS;
  return notifyTeam(deps, d.tenant_id, {
    subject:
      transition === 'degraded'
        ? `Sending domain ${d.domain} needs attention`
        : `Sending domain ${d.domain} failed: its mail is refused`,
    intro:
      transition === 'degraded'
        ? `A DNS record of ${d.domain} is missing or wrong. Mail still goes out from it; if the record is not fixed within ${graceHours} hours, the domain fails and its mail is refused.`
        : `A DNS record of ${d.domain} stayed missing or wrong past the grace, so the domain failed: sends from it are refused until its records are fixed and it verifies again.`,
    item: d.domain,
    problem: records,
    since: d.status_since,
    page: `/domains?open=${d.id}`,
    environmentId: d.scope === 'environment' ? d.environment_id : null,
    projectId: d.scope === 'project' ? d.project_id : null,
  });
}
