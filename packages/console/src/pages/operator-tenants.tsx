// Operator: the tenants (list, create) and the plans (list, create).
import { useState } from 'preact/hooks';
import {
  ActionStatus,
  type Async,
  AsyncView,
  DateTime,
  Field,
  StatusBadge,
  SubmitActions,
  TableWrap,
  useAction,
  useAsync,
} from '../components/ui.js';
import { admin, type Plan, type Tenant } from './operator-api.js';

const OTHER_PLAN = '';

function CreateTenant({ planIds, onCreated }: { planIds: string[]; onCreated: (t: Tenant) => void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string | null>(null);
  const [otherPlan, setOtherPlan] = useState('');
  const action = useAction();
  const plan = chosen ?? planIds[0] ?? OTHER_PLAN;
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const res = await admin.createTenant(name.trim(), plan === OTHER_PLAN ? otherPlan.trim() : plan);
      setName('');
      onCreated(res.tenant);
      return `Tenant ${res.tenant.name} created (${res.tenant.id}).`;
    });
  };
  return (
    <>
      <h3>Create a tenant</h3>
      <form class="filters" onSubmit={submit}>
        <Field id="op-tenant-name" label="Name">
          <input
            id="op-tenant-name"
            type="text"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <Field id="op-tenant-plan" label="Plan">
          <select id="op-tenant-plan" value={plan} onChange={(e) => setChosen(e.currentTarget.value)}>
            {planIds.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
            <option value={OTHER_PLAN}>Another plan id…</option>
          </select>
        </Field>
        {plan === OTHER_PLAN ? (
          <Field id="op-tenant-plan-id" label="Plan id">
            <input
              id="op-tenant-plan-id"
              type="text"
              required
              value={otherPlan}
              onInput={(e) => setOtherPlan(e.currentTarget.value)}
            />
          </Field>
        ) : null}
        <SubmitActions busy={action.busy}>Create tenant</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </>
  );
}

export function TenantsSection(props: {
  state: Async<{ tenants: Tenant[] }>;
  planIds: string[];
  onCreated: (t: Tenant) => void;
}) {
  return (
    <section aria-labelledby="op-tenants-h">
      <h2 id="op-tenants-h">Tenants</h2>
      <AsyncView state={props.state} isEmpty={(d) => d.tenants.length === 0} empty="No tenants yet.">
        {(d) => (
          <TableWrap label="Tenants">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Id</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Access</th>
                  <th scope="col">Trial ends</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {d.tenants.map((t) => (
                  <tr key={t.id}>
                    <td class="op-name">{t.name}</td>
                    <td>
                      <code>{t.id}</code>
                    </td>
                    <td>{t.planId}</td>
                    <td>
                      <StatusBadge value={t.accessStatus} />
                    </td>
                    <td>
                      <DateTime iso={t.trialEndsAt} />
                    </td>
                    <td>
                      <DateTime iso={t.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </AsyncView>
      <CreateTenant planIds={props.planIds} onCreated={props.onCreated} />
    </section>
  );
}

function CreatePlan({ onCreated }: { onCreated: (p: Plan) => void }) {
  const [id, setId] = useState('');
  const [limit, setLimit] = useState('');
  const [overage, setOverage] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const monthlyLimit = Number(limit);
      if (!Number.isInteger(monthlyLimit) || monthlyLimit < 0)
        throw new Error('The monthly limit must be a whole number, 0 or more.');
      const res = await admin.createPlan(id.trim(), monthlyLimit, overage);
      setId('');
      setLimit('');
      setOverage(false);
      onCreated(res.plan);
      return `Plan ${res.plan.id} created.`;
    });
  };
  return (
    <>
      <h3>Create a plan</h3>
      <form class="filters" onSubmit={submit}>
        <Field id="op-plan-id" label="Id">
          <input
            id="op-plan-id"
            type="text"
            required
            placeholder="starter"
            pattern="[a-z0-9][a-z0-9_\-]{0,62}"
            aria-describedby="op-plan-id-hint"
            value={id}
            onInput={(e) => setId(e.currentTarget.value)}
          />
          <span id="op-plan-id-hint" class="hint">
            Lowercase letters, digits, - and _
          </span>
        </Field>
        <Field id="op-plan-limit" label="Monthly limit (emails)">
          <input
            id="op-plan-limit"
            type="number"
            min={0}
            step={1}
            required
            value={limit}
            onInput={(e) => setLimit(e.currentTarget.value)}
          />
        </Field>
        <div class="check">
          <input
            id="op-plan-overage"
            type="checkbox"
            checked={overage}
            onChange={(e) => setOverage(e.currentTarget.checked)}
          />
          <label for="op-plan-overage">Overage allowed</label>
        </div>
        <SubmitActions busy={action.busy}>Create plan</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </>
  );
}

/** Every plan (admin plans.list), with how many of the listed tenants use each. */
function usePlans(tenants: Tenant[], created: Plan[]) {
  const users = new Map<string, number>();
  for (const t of tenants) users.set(t.planId, (users.get(t.planId) ?? 0) + 1);
  const looked = useAsync(async () => (await admin.plans()).plans, [created.length]);
  const plans = new Map<string, Plan>();
  for (const p of looked.data ?? []) plans.set(p.id, p);
  for (const p of created) plans.set(p.id, p);
  const rows = [...plans.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { looked, rows, tenantsOf: (id: string) => users.get(id) ?? 0 };
}

export function PlansSection(props: { tenants: Tenant[]; created: Plan[]; onCreated: (p: Plan) => void }) {
  const { looked, rows, tenantsOf } = usePlans(props.tenants, props.created);
  return (
    <section aria-labelledby="op-plans-h">
      <h2 id="op-plans-h">Plans</h2>
      <AsyncView state={looked} isEmpty={() => rows.length === 0} empty="No plans known yet.">
        {() => (
          <TableWrap label="Plans">
            <table>
              <thead>
                <tr>
                  <th scope="col">Plan</th>
                  <th scope="col">Monthly limit</th>
                  <th scope="col">Overage</th>
                  <th scope="col">Tenants</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => (
                  <tr key={p.id}>
                    <td>{p.id}</td>
                    <td>{p.monthlyLimit.toLocaleString()}</td>
                    <td>{p.overageAllowed ? 'allowed' : 'not allowed'}</td>
                    <td>{tenantsOf(p.id)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </AsyncView>
      <CreatePlan onCreated={props.onCreated} />
    </section>
  );
}
