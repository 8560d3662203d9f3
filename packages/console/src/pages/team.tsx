// Team: the tenant's members (invite, change role, remove) and the signed-in user's sessions.
import { MEMBER_ROLES, type MemberRole, roleAtLeast } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import { consoleApi, type Member } from '../api.js';
import {
  ActionStatus,
  AsyncView,
  DateTime,
  Field,
  PageTitle,
  StatusBadge,
  SubmitActions,
  TableWrap,
  useAction,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import { Sessions } from './sessions.js';
import { TwoFactor } from './two-factor.js';

/** The roles `role` may hand out: an owner any, an admin up to admin. */
function grantable(role: MemberRole): MemberRole[] {
  return MEMBER_ROLES.filter((r) => r !== 'owner' || role === 'owner');
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const { env, role } = useConsole();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [newRole, setNewRole] = useState<MemberRole>('developer');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const res = await consoleApi.membersInvite({
        tenantId: env.membership.tenantId,
        email: email.trim(),
        role: newRole,
        ...(name.trim() && { name: name.trim() }),
      });
      setEmail('');
      setName('');
      onInvited();
      return `Invitation sent to ${res.member.email}.`;
    });
  };
  return (
    <section aria-labelledby="invite-h">
      <h2 id="invite-h">Invite a member</h2>
      <form class="filters" onSubmit={submit}>
        <Field id="inv-email" label="Email">
          <input
            id="inv-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field id="inv-name" label="Name (optional)">
          <input id="inv-name" type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field id="inv-role" label="Role">
          <select
            id="inv-role"
            value={newRole}
            onChange={(e) => setNewRole(e.currentTarget.value as MemberRole)}
          >
            {grantable(role).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <SubmitActions busy={action.busy}>Invite</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </section>
  );
}

function MemberRow({ m, reload }: { m: Member; reload: () => void }) {
  const { env, role, me } = useConsole();
  const [newRole, setNewRole] = useState<MemberRole>(m.role);
  const action = useAction();
  const tenantId = env.membership.tenantId;
  const canManage = roleAtLeast(role, 'admin') && (m.role !== 'owner' || role === 'owner');
  const update = () =>
    action.run(async () => {
      await consoleApi.membersUpdate(tenantId, m.id, newRole);
      reload();
      return `${m.email} is now ${newRole}.`;
    });
  const remove = () =>
    action.run(async () => {
      if (!window.confirm(`Remove ${m.email} from ${env.membership.tenantName}?`)) return;
      await consoleApi.membersRemove(tenantId, m.id);
      reload();
      return `${m.email} removed.`;
    });
  return (
    <tr>
      <td>
        {m.email}
        {m.email === me.email ? <span class="muted"> (you)</span> : null}
      </td>
      <td>{m.name ?? ''}</td>
      <td>{m.role}</td>
      <td>
        <StatusBadge value={m.status} />
      </td>
      <td>{m.projectIds === null ? 'All projects' : `${m.projectIds.length} project(s)`}</td>
      <td>
        <DateTime iso={m.lastSignInAt} empty="never" />
      </td>
      <td>
        {canManage ? (
          <div class="row-actions">
            <label for={`role-${m.id}`} class="visually-hidden">
              New role for {m.email}
            </label>
            <select
              id={`role-${m.id}`}
              value={newRole}
              onChange={(e) => setNewRole(e.currentTarget.value as MemberRole)}
            >
              {grantable(role).map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="btn btn-small"
              disabled={action.busy || newRole === m.role}
              onClick={update}
            >
              Change role
            </button>
            <button type="button" class="btn btn-small btn-danger" disabled={action.busy} onClick={remove}>
              Remove
            </button>
          </div>
        ) : null}
        <ActionStatus action={action} />
      </td>
    </tr>
  );
}

function Members() {
  const { env, role } = useConsole();
  const tenantId = env.membership.tenantId;
  const state = useAsync(() => consoleApi.membersList(tenantId), [tenantId]);
  return (
    <>
      {roleAtLeast(role, 'admin') ? <InviteForm onInvited={state.reload} /> : null}
      <section aria-labelledby="members-h">
        <h2 id="members-h">Members of {env.membership.tenantName}</h2>
        <AsyncView state={state} isEmpty={(d) => d.members.length === 0} empty="No members.">
          {(d) => (
            <TableWrap label="Members">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Name</th>
                    <th scope="col">Role</th>
                    <th scope="col">Status</th>
                    <th scope="col">Projects</th>
                    <th scope="col">Last sign-in</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {d.members.map((m) => (
                    <MemberRow key={`${m.id}-${m.role}`} m={m} reload={state.reload} />
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </AsyncView>
      </section>
    </>
  );
}

export function TeamPage() {
  return (
    <>
      <PageTitle title="Team">Team</PageTitle>
      <Members />
      <TwoFactor />
      <Sessions />
    </>
  );
}
