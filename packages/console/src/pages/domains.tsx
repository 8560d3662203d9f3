// Domains: the sending domains of the environment, its project and tenant, with their DNS records.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import {
  ActionStatus,
  AsyncView,
  CopyButton,
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
import { useLocation } from '../router.js';
import type { ListDomainsResult } from '../sdk.js';

type Domain = ListDomainsResult['domains'][number];
type DnsRecord = Domain['records'][number];

function RecordRow({ r }: { r: DnsRecord }) {
  return (
    <tr>
      <td>
        {r.type}
        {r.priority !== undefined ? <span class="muted"> (priority {r.priority})</span> : null}
        <div class="muted">
          {r.purpose.replace(/_/g, ' ')}
          {r.required ? '' : ' (optional)'}
        </div>
      </td>
      <td>
        <code class="wrap">{r.host}</code>
        <div>
          <CopyButton text={r.host} label="Copy host" />
        </div>
      </td>
      <td class="value-cell">
        <code class="wrap">{r.value}</code>
        <div>
          <CopyButton text={r.value} label="Copy value" />
        </div>
      </td>
      <td>
        <StatusBadge value={r.state} />
        {r.removableAt ? (
          <div class="muted">
            removable <DateTime iso={r.removableAt} />
          </div>
        ) : null}
      </td>
      <td>
        {r.problems.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <ul class="problems">
            {r.problems.map((p) => (
              <li key={p.code}>{p.message}</li>
            ))}
          </ul>
        )}
        {r.found.length > 0 && r.state !== 'verified' ? (
          <div class="muted wrap">Found: {r.found.join(' | ')}</div>
        ) : null}
      </td>
    </tr>
  );
}

function DomainActions({ d, reload }: { d: Domain; reload: () => void }) {
  const { client, role } = useConsole();
  const action = useAction();
  // The worker's checker looks at DNS within seconds of the request: wait for its answer.
  const verify = () =>
    action.run(async () => {
      const before = (await client.domains.verify({ domainId: d.domainId })).domain.lastCheckedAt;
      let status = d.status;
      for (let i = 0; i < 30; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        const now = (await client.domains.get({ domainId: d.domainId })).domain;
        status = now.status;
        if (now.lastCheckedAt !== before) break;
      }
      reload();
      return `Checked: ${status}.`;
    });
  const rotate = () =>
    action.run(async () => {
      if (!window.confirm(`Rotate the DKIM key of ${d.domain}? You will publish a new record.`)) return;
      await client.domains.rotateDkim({ domainId: d.domainId });
      reload();
      return 'New DKIM key created: publish the dkim next record.';
    });
  const remove = () =>
    action.run(async () => {
      if (!window.confirm(`Delete ${d.domain}? Mail can no longer be sent from it.`)) return;
      await client.domains.delete({ domainId: d.domainId });
      reload();
      return `${d.domain} deleted.`;
    });
  return (
    <>
      <div class="actions">
        {roleAllows(role, 'verifyDomain') ? (
          <button type="button" class="btn" disabled={action.busy} onClick={verify}>
            Verify now
          </button>
        ) : null}
        {roleAllows(role, 'rotateDomainDkim') ? (
          <button type="button" class="btn" disabled={action.busy} onClick={rotate}>
            Rotate DKIM
          </button>
        ) : null}
        {roleAllows(role, 'deleteDomain') ? (
          <button type="button" class="btn btn-danger" disabled={action.busy} onClick={remove}>
            Delete
          </button>
        ) : null}
      </div>
      <ActionStatus action={action} />
    </>
  );
}

function DomainCard({ d, open, reload }: { d: Domain; open: boolean; reload: () => void }) {
  return (
    <section class="panel" aria-labelledby={`dom-${d.domainId}`}>
      <h2 id={`dom-${d.domainId}`}>
        {d.domain} <StatusBadge value={d.status} />
      </h2>
      <dl class="facts">
        <dt>Scope</dt>
        <dd>{d.scope}</dd>
        <dt>Status since</dt>
        <dd>
          <DateTime iso={d.statusSince} />
        </dd>
        <dt>Return path</dt>
        <dd>
          {d.returnPath.host} <StatusBadge value={d.returnPath.status} />
        </dd>
        <dt>DMARC</dt>
        <dd>{d.dmarc ? `${d.dmarc.policy ?? 'no policy'}: ${d.dmarc.alignment}` : 'not checked yet'}</dd>
        <dt>Last checked</dt>
        <dd>
          <DateTime iso={d.lastCheckedAt} empty="never" />
        </dd>
        <dt>Next check</dt>
        <dd>
          <DateTime iso={d.nextCheckAt} empty="not scheduled" />
        </dd>
      </dl>
      <DomainActions d={d} reload={reload} />
      <details open={open}>
        <summary>DNS records ({d.records.length})</summary>
        <TableWrap label={`DNS records of ${d.domain}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Host</th>
                <th scope="col">Value</th>
                <th scope="col">State</th>
                <th scope="col">Problems</th>
              </tr>
            </thead>
            <tbody>
              {d.records.map((r) => (
                <RecordRow key={`${r.purpose}-${r.host}`} r={r} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </section>
  );
}

function AddDomain({ onAdded }: { onAdded: (id: string) => void }) {
  const { client } = useConsole();
  const [domain, setDomain] = useState('');
  const [scope, setScope] = useState<'environment' | 'project' | 'tenant'>('environment');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const res = await client.domains.add({ domain: domain.trim().toLowerCase(), scope });
      setDomain('');
      onAdded(res.domain.domainId);
      return `${res.domain.domain} added: publish its DNS records below.`;
    });
  };
  return (
    <section aria-labelledby="add-dom-h">
      <h2 id="add-dom-h">Add a domain</h2>
      <form class="filters" onSubmit={submit}>
        <Field id="dom-name" label="Domain">
          <input
            id="dom-name"
            type="text"
            required
            placeholder="mail.example.com"
            value={domain}
            onInput={(e) => setDomain(e.currentTarget.value)}
          />
        </Field>
        <Field id="dom-scope" label="Scope">
          <select
            id="dom-scope"
            value={scope}
            onChange={(e) => setScope(e.currentTarget.value as typeof scope)}
          >
            <option value="environment">This environment</option>
            <option value="project">Every environment of the project</option>
            <option value="tenant">Every environment of the tenant</option>
          </select>
        </Field>
        <SubmitActions busy={action.busy}>Add domain</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </section>
  );
}

export function DomainsPage() {
  const { client, role } = useConsole();
  const { search } = useLocation();
  const [opened, setOpened] = useState<string | null>(search.get('open'));
  const state = useAsync(() => client.domains.list(), [client]);
  return (
    <>
      <PageTitle title="Domains">Domains</PageTitle>
      {roleAllows(role, 'addDomain') ? (
        <AddDomain
          onAdded={(id) => {
            setOpened(id);
            state.reload();
          }}
        />
      ) : null}
      <AsyncView
        state={state}
        isEmpty={(d) => d.domains.length === 0}
        empty="No sending domain yet: add one to send from your own address."
      >
        {(d) =>
          d.domains.map((x) => (
            <DomainCard
              key={x.domainId}
              d={x}
              open={x.status !== 'verified' || x.domainId === opened}
              reload={state.reload}
            />
          ))
        }
      </AsyncView>
    </>
  );
}
