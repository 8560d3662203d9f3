// Mail to a tenant's team when something of theirs needs attention and no app is told otherwise
// (a webhook endpoint disabled, a sending domain degraded or failed): the owners and admins, from
// the system environment with the catalogue's `action-required`, linking to the console page that
// shows it. A failure to send is logged, never thrown: the change it reports is already recorded
// (audited, and sent to webhooks where it has an event).
import { listTenantMembers } from '../../db/repositories/console-people.js';
import { findEnvironment } from '../../db/repositories/tenancy.js';
import type { Deps } from '../deps.js';
import { sendSystemMail } from './system-mail.js';

export interface TeamNotice {
  subject: string;
  intro: string;
  item: string;
  problem: string;
  since: Date;
  /** The console page, from /console (e.g. '/webhooks'). */
  page: string;
  /**
   * What it belongs to: an environment's or a project's (that project's members hear of it), or
   * the tenant's (neither: every owner and admin).
   */
  environmentId?: string | null;
  projectId?: string | null;
}

/** Owners and admins who reach the notice's project (every one for a tenant's). */
async function teamOf(deps: Deps, tenantId: string, { environmentId, projectId }: TeamNotice) {
  const project =
    projectId ?? (environmentId ? (await findEnvironment(deps.db, environmentId))?.project_id : undefined);
  return (await listTenantMembers(deps.db, tenantId)).filter(
    (m) =>
      (m.role === 'owner' || m.role === 'admin') &&
      (m.project_ids === null || (project !== undefined && m.project_ids.includes(project))),
  );
}

export async function notifyTeam(deps: Deps, tenantId: string, notice: TeamNotice): Promise<number> {
  if (deps.config.MAILSVC_CONSOLE === 'off') return 0;
  try {
    const team = await teamOf(deps, tenantId, notice);
    for (const m of team) {
      await sendSystemMail(deps, 'action-required', m.email, {
        subject: notice.subject,
        intro: notice.intro,
        issueDetails: { item: notice.item, problem: notice.problem, since: notice.since.toISOString() },
        actionButton: { url: `${deps.config.MAILSVC_PUBLIC_URL}/console${notice.page}` },
      });
    }
    return team.length;
  } catch (err) {
    deps.log.error({ err, tenantId }, 'console: the team could not be mailed');
    return 0;
  }
}
