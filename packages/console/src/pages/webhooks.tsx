// Webhooks: the environment's endpoints: create, test, rotate, enable or disable, delete, deliveries.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import {
  ActionStatus,
  AsyncView,
  DateTime,
  PageTitle,
  SecretBox,
  StatusBadge,
  useAction,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import { type ListWebhooksResult, WEBHOOK_EVENT_TYPES, type WebhookEvent } from '../sdk.js';
import { Deliveries } from './webhook-deliveries.js';

type Endpoint = ListWebhooksResult['endpoints'][number];
type EventType = WebhookEvent['type'];

function EventPicker({
  chosen,
  setChosen,
}: {
  chosen: Set<EventType>;
  setChosen: (s: Set<EventType>) => void;
}) {
  const toggle = (t: EventType, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(t);
    else next.delete(t);
    setChosen(next);
  };
  return (
    <fieldset class="events">
      <legend>Events</legend>
      {(WEBHOOK_EVENT_TYPES as readonly EventType[]).map((t) => (
        <div class="check" key={t}>
          <input
            id={`ev-${t}`}
            type="checkbox"
            checked={chosen.has(t)}
            onChange={(e) => toggle(t, e.currentTarget.checked)}
          />
          <label for={`ev-${t}`}>{t}</label>
        </div>
      ))}
    </fieldset>
  );
}

function CreateEndpoint({ onCreated }: { onCreated: (secret: string) => void }) {
  const { client } = useConsole();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<Set<EventType>>(new Set());
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      if (!all && chosen.size === 0) throw new Error('Choose at least one event, or all events.');
      const res = await client.webhooks.create({
        url: url.trim(),
        events: all ? null : [...chosen],
        ...(description.trim() && { description: description.trim() }),
      });
      setUrl('');
      setDescription('');
      onCreated(res.secret);
      return 'Endpoint added.';
    });
  };
  return (
    <section aria-labelledby="add-wh-h">
      <h2 id="add-wh-h">Add an endpoint</h2>
      <form class="stack" onSubmit={submit}>
        <label for="wh-url">URL</label>
        <input
          id="wh-url"
          type="url"
          required
          placeholder="https://example.com/webhooks/mailsvc"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <label for="wh-desc">Description (optional)</label>
        <input
          id="wh-desc"
          type="text"
          maxLength={200}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <div class="check">
          <input
            id="wh-all"
            type="checkbox"
            checked={all}
            onChange={(e) => setAll(e.currentTarget.checked)}
          />
          <label for="wh-all">All events</label>
        </div>
        {all ? null : <EventPicker chosen={chosen} setChosen={setChosen} />}
        <div>
          <button type="submit" class="btn btn-primary" disabled={action.busy}>
            Add endpoint
          </button>
        </div>
      </form>
      <ActionStatus action={action} />
    </section>
  );
}

function EndpointActions({
  ep,
  reload,
  onSecret,
}: {
  ep: Endpoint;
  reload: () => void;
  onSecret: (s: string) => void;
}) {
  const { client, role } = useConsole();
  const action = useAction();
  const id = { endpointId: ep.endpointId };
  const test = () => action.run(async () => `Test event ${(await client.webhooks.test(id)).eventId} queued.`);
  const rotate = () =>
    action.run(async () => {
      if (!window.confirm('Rotate the signing secret? The old one keeps signing for 24 hours.')) return;
      const res = await client.webhooks.rotateSecret(id);
      onSecret(res.secret);
      return 'Secret rotated.';
    });
  const toggle = () =>
    action.run(async () => {
      await client.webhooks.update({ ...id, enabled: !ep.enabled });
      reload();
      return ep.enabled ? 'Endpoint disabled.' : 'Endpoint enabled.';
    });
  const remove = () =>
    action.run(async () => {
      if (!window.confirm(`Delete the endpoint ${ep.url}?`)) return;
      await client.webhooks.delete(id);
      reload();
      return 'Endpoint deleted.';
    });
  if (!roleAllows(role, 'updateWebhook')) return null;
  return (
    <>
      <div class="actions">
        <button type="button" class="btn" disabled={action.busy} onClick={test}>
          Send test
        </button>
        <button type="button" class="btn" disabled={action.busy} onClick={rotate}>
          Rotate secret
        </button>
        <button type="button" class="btn" disabled={action.busy} onClick={toggle}>
          {ep.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="btn btn-danger" disabled={action.busy} onClick={remove}>
          Delete
        </button>
      </div>
      <ActionStatus action={action} />
    </>
  );
}

function EndpointCard({ ep, reload }: { ep: Endpoint; reload: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [showDeliveries, setShowDeliveries] = useState(false);
  return (
    <section class="panel" aria-labelledby={`wh-${ep.endpointId}`}>
      <h3 id={`wh-${ep.endpointId}`} class="wrap">
        {ep.url}
      </h3>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge value={ep.enabled ? 'enabled' : 'disabled'} />
          {ep.disabledReason ? ` (${ep.disabledReason})` : ''}
        </dd>
        <dt>Description</dt>
        <dd>{ep.description ?? '—'}</dd>
        <dt>Events</dt>
        <dd>{ep.events === null ? 'All events' : ep.events.join(', ')}</dd>
        <dt>Created</dt>
        <dd>
          <DateTime iso={ep.createdAt} />
        </dd>
      </dl>
      <EndpointActions ep={ep} reload={reload} onSecret={setSecret} />
      {secret ? <SecretBox title="New signing secret" secret={secret} level={4} /> : null}
      <button
        type="button"
        class="btn btn-link"
        aria-expanded={showDeliveries}
        onClick={() => setShowDeliveries(!showDeliveries)}
      >
        {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
      </button>
      {showDeliveries ? <Deliveries endpointId={ep.endpointId} label={ep.url} /> : null}
    </section>
  );
}

export function WebhooksPage() {
  const { client, role } = useConsole();
  const state = useAsync(() => client.webhooks.list(), [client]);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <PageTitle title="Webhooks">Webhooks</PageTitle>
      {roleAllows(role, 'createWebhook') ? (
        <CreateEndpoint
          onCreated={(s) => {
            setSecret(s);
            state.reload();
          }}
        />
      ) : null}
      {secret ? <SecretBox title="Signing secret of the new endpoint" secret={secret} /> : null}
      <section aria-labelledby="wh-list-h">
        <h2 id="wh-list-h">Endpoints</h2>
        <AsyncView state={state} isEmpty={(d) => d.endpoints.length === 0} empty="No webhook endpoints yet.">
          {(d) => d.endpoints.map((ep) => <EndpointCard key={ep.endpointId} ep={ep} reload={state.reload} />)}
        </AsyncView>
      </section>
    </>
  );
}
