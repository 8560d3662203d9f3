// Operator: the chosen tenant's usage this month and its team members (list, invite; the way the
// operator invites a tenant's first owner).
import type { MemberRole } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import type { Member } from '../api.js';
import {
  ActionStatus,
  AsyncView,
  DateTime,
  Empty,
  Field,
  StatusBadge,
  SubmitActions,
  TableWrap,
  useAction,
  useAsync,
} from '../components/ui.js';
import { admin, type Tenant } from './operator-api.js';

const ROLES: MemberRole[] = ['owner', 'admin', 'developer', 'viewer'];

function TenantUsage({ tenant }: { tenant: Tenant }) {
  const state = useAsync(() => admin.usage(tenant.id), [tenant.id]);
  return (
    <>
      <p class="lead">Of the tenant {tenant.name}, this month.</p>
      <AsyncView state={state}>
        {({ usage }) => (
          <>
            <dl class="facts">
              <dt>Period</dt>
              <dd>{usage.period}</dd>
              <dt>Plan</dt>
              <dd>{usage.planId}</dd>
              <dt>Sent</dt>
              <dd>
                {usage.used.toLocaleString()} of {usage.limit.toLocaleString()}{' '}
                <StatusBadge value={usage.status} />
              </dd>
              <dt>Overage</dt>
              <dd>
                {usage.overageEmails.toLocaleString()} emails over the limit (overage{' '}
                {usage.overageAllowed ? 'allowed' : 'not allowed'})
              </dd>
            </dl>
            {usage.environments.length > 0 ? (
              <TableWrap label="Sent by environment">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Environment</th>
                      <th scope="col">Sent</th>
                    </tr>
                  </thead>
                  <tbody>
                    {usage.environments.map((e) => (
                      <tr key={e.environmentId}>
                        <td>
                          <code>{e.environmentId}</code>
                        </td>
                        <td>{e.used.toLocaleString()}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            ) : null}
          </>
        )}
      </AsyncView>
    </>
  );
}

export function UsageSection({ tenant }: { tenant: Tenant | undefined }) {
  return (
    <section aria-labelledby="op-usage-h">
      <h2 id="op-usage-h">Usage</h2>
      {tenant ? <TenantUsage key={tenant.id} tenant={tenant} /> : <Empty>Create a tenant first.</Empty>}
    </section>
  );
}

function InviteForm(props: { tenant: Tenant; firstOwner: boolean; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [chosen, setChosen] = useState<MemberRole | null>(null);
  const role = chosen ?? (props.firstOwner ? 'owner' : 'developer');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const res = await admin.invite(props.tenant.id, email.trim(), role);
      setEmail('');
      setChosen(null);
      props.onInvited();
      return `Invitation sent to ${res.member.email} (${res.member.role}).`;
    });
  };
  return (
    <>
      <h3>Invite a member to {props.tenant.name}</h3>
      <form class="filters" onSubmit={submit}>
        <Field id="op-invite-email" label="Email">
          <input
            id="op-invite-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field id="op-invite-role" label="Role">
          <select
            id="op-invite-role"
            value={role}
            onChange={(e) => setChosen(e.currentTarget.value as MemberRole)}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <SubmitActions busy={action.busy}>Invite</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </>
  );
}

function MemberTable({ members }: { members: Member[] }) {
  return (
    <TableWrap label="Members">
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Last sign-in</th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.id}>
              <td class="op-name">{m.email}</td>
              <td>{m.name ?? ''}</td>
              <td>{m.role}</td>
              <td>
                <StatusBadge value={m.status} />
              </td>
              <td>
                <DateTime iso={m.lastSignInAt} empty="never" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function TenantMembers({ tenant }: { tenant: Tenant }) {
  const state = useAsync(() => admin.members(tenant.id), [tenant.id]);
  const none = state.data?.members.length === 0;
  return (
    <>
      <p class="lead">Of the tenant {tenant.name}.</p>
      <AsyncView
        state={state}
        isEmpty={(d) => d.members.length === 0}
        empty="No members yet: invite the tenant's first owner."
      >
        {(d) => <MemberTable members={d.members} />}
      </AsyncView>
      <InviteForm tenant={tenant} firstOwner={none} onInvited={state.reload} />
    </>
  );
}

export function MembersSection({ tenant }: { tenant: Tenant | undefined }) {
  return (
    <section aria-labelledby="op-members-h">
      <h2 id="op-members-h">Members</h2>
      {tenant ? <TenantMembers key={tenant.id} tenant={tenant} /> : <Empty>Create a tenant first.</Empty>}
    </section>
  );
}
