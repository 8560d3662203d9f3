// API keys: the environment's keys; create one (its secret shown once) or revoke one.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import {
  ActionStatus,
  AsyncView,
  DateTime,
  Field,
  PageTitle,
  SecretBox,
  StatusBadge,
  SubmitActions,
  TableWrap,
  useAction,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import type { ListKeysResult } from '../sdk.js';

type Key = ListKeysResult['keys'][number];

function CreateKey({ onCreated }: { onCreated: (apiKey: string) => void }) {
  const { client } = useConsole();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'send'>('send');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const res = await client.keys.create({ scope, ...(name.trim() && { name: name.trim() }) });
      setName('');
      onCreated(res.apiKey);
      return `Key ${res.key.hint} created.`;
    });
  };
  return (
    <section aria-labelledby="new-key-h">
      <h2 id="new-key-h">Create a key</h2>
      <form class="filters" onSubmit={submit}>
        <Field id="key-name" label="Name">
          <input
            id="key-name"
            type="text"
            placeholder="wrapper"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <Field id="key-scope" label="Scope">
          <select
            id="key-scope"
            value={scope}
            onChange={(e) => setScope(e.currentTarget.value as 'full' | 'send')}
          >
            <option value="send">send: send and read the quota only</option>
            <option value="full">full: every operation</option>
          </select>
        </Field>
        <SubmitActions busy={action.busy}>Create key</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </section>
  );
}

function KeyRows({ keys, reload }: { keys: Key[]; reload: () => void }) {
  const { client, role } = useConsole();
  const action = useAction();
  const canRevoke = roleAllows(role, 'revokeKey');
  const revoke = (k: Key) =>
    action.run(async () => {
      if (!window.confirm(`Revoke ${k.name ?? k.hint}? Requests with it will be refused within seconds.`))
        return;
      await client.keys.revoke({ keyId: k.keyId });
      reload();
      return `Key ${k.hint} revoked.`;
    });
  return (
    <>
      <ActionStatus action={action} />
      <TableWrap label="API keys">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scope</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.keyId}>
                <td>{k.name ?? <span class="muted">unnamed</span>}</td>
                <td>
                  <code>{k.hint}</code>
                </td>
                <td>
                  {k.scope}
                  {k.templateCategories ? <div class="muted">{k.templateCategories.join(', ')}</div> : null}
                </td>
                <td>
                  <StatusBadge value={k.status} />
                </td>
                <td>
                  <DateTime iso={k.createdAt} />
                </td>
                <td>
                  <DateTime iso={k.lastUsedAt} empty="never" />
                </td>
                <td>
                  {canRevoke && k.status === 'active' ? (
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      disabled={action.busy}
                      onClick={() => revoke(k)}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}

export function KeysPage() {
  const { client, role } = useConsole();
  const state = useAsync(() => client.keys.list(), [client]);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <PageTitle title="API keys">API keys</PageTitle>
      {roleAllows(role, 'createKey') ? (
        <CreateKey
          onCreated={(k) => {
            setSecret(k);
            state.reload();
          }}
        />
      ) : null}
      {secret ? (
        <SecretBox title="Your new API key" secret={secret}>
          <p>Try it:</p>
          <pre class="code-block">
            <code>{`curl -s ${location.origin}/v1/quota -H 'Authorization: Bearer ${secret}'`}</code>
          </pre>
        </SecretBox>
      ) : null}
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Keys of this environment</h2>
        <AsyncView state={state} isEmpty={(d) => d.keys.length === 0} empty="No API keys yet.">
          {(d) => <KeyRows keys={d.keys} reload={state.reload} />}
        </AsyncView>
      </section>
    </>
  );
}
