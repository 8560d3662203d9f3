// Mail to a tenant's team when something of theirs needs attention and no app is told otherwise
// (a webhook endpoint disabled, a sending domain degraded or failed): the owners and admins, from
// the system environment with the catalogue's `action-required`, linking to the console page that
// shows it. A failure to send is logged, never thrown: the change it reports is already recorded
// (audited, and sent to webhooks where it has an event).
import { listTenantMembers } from '../../db/repositories/console-people.js';
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
}

export async function notifyTeam(deps: Deps, tenantId: string, notice: TeamNotice): Promise<number> {
  if (deps.config.MAILSVC_CONSOLE === 'off') return 0;
  try {
    const team = (await listTenantMembers(deps.db, tenantId)).filter(
      (m) => m.role === 'owner' || m.role === 'admin',
    );
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
