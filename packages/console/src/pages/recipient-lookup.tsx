// A recipient's state, its recent messages and, on the recipient's own request, a resubscribe.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import { ActionStatus, DateTime, Field, StatusBadge, TableWrap, useAction } from '../components/ui.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';
import type { GetRecipientStatusResult } from '../sdk.js';

function Resubscribe({ email, onDone }: { email: string; onDone: () => void }) {
  const { client, role } = useConsole();
  const [asked, setAsked] = useState(false);
  const action = useAction();
  if (!roleAllows(role, 'resubscribeRecipient'))
    return <p class="muted">Only an admin or owner can resubscribe a recipient.</p>;
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      await client.recipients.resubscribe({ email, scope: 'app_notifications' });
      onDone();
      return 'Resubscribed to notifications.';
    });
  };
  return (
    <form onSubmit={submit} class="stack">
      <div class="check">
        <input
          id="resub-asked"
          type="checkbox"
          checked={asked}
          onChange={(e) => setAsked(e.currentTarget.checked)}
        />
        <label for="resub-asked">The recipient asked to receive mail again</label>
      </div>
      <div>
        <button type="submit" class="btn" disabled={!asked || action.busy}>
          Resubscribe
        </button>
      </div>
      <ActionStatus action={action} />
    </form>
  );
}

function RecipientResult({
  email,
  data,
  reload,
}: {
  email: string;
  data: GetRecipientStatusResult;
  reload: () => void;
}) {
  const r = data.recipient;
  return (
    <div class="panel">
      <h3>{r.emailMasked}</h3>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <StatusBadge value={r.state} />
        </dd>
        <dt>Notifications</dt>
        <dd>
          {r.subscription.status}
          {r.subscription.unsubscribedAt ? (
            <>
              {' '}
              (unsubscribed <DateTime iso={r.subscription.unsubscribedAt} />)
            </>
          ) : null}
          {r.canSendNotifications ? ' — notifications can be sent' : ' — notifications are held back'}
        </dd>
        <dt>Hard bounces</dt>
        <dd>{r.delivery.hardBounceCount}</dd>
        <dt>Complaints</dt>
        <dd>{r.delivery.complaintCount}</dd>
        <dt>Cooldown until</dt>
        <dd>
          <DateTime iso={r.delivery.cooldownUntil} />
        </dd>
      </dl>
      {r.subscription.status === 'unsubscribed' ? <Resubscribe email={email} onDone={reload} /> : null}
      <h4>Recent messages</h4>
      {data.messages.length === 0 ? (
        <p class="empty">No messages to this address.</p>
      ) : (
        <TableWrap label="Recent messages to the recipient">
          <table>
            <thead>
              <tr>
                <th scope="col">Message</th>
                <th scope="col">Status</th>
                <th scope="col">Template</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.messages.map((m) => (
                <tr key={m.messageId}>
                  <td>
                    <a class="mono" href={href(`/emails/${encodeURIComponent(m.messageId)}`)}>
                      {m.messageId}
                    </a>
                  </td>
                  <td>
                    <StatusBadge value={m.status} />
                  </td>
                  <td>{m.templateId}</td>
                  <td>
                    <DateTime iso={m.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}

export function RecipientLookup() {
  const { client } = useConsole();
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<{ email: string; data: GetRecipientStatusResult } | null>(null);
  const action = useAction();
  const lookUp = (address: string) =>
    action.run(async () => {
      const data = await client.recipients.status({ email: address, limit: 10 });
      setResult({ email: address, data });
      return undefined;
    });
  const submit = (event: Event) => {
    event.preventDefault();
    lookUp(email.trim());
  };
  return (
    <section aria-labelledby="lookup-h">
      <h2 id="lookup-h">Look up a recipient</h2>
      <form class="inline-form" onSubmit={submit}>
        <Field id="lookup-email" label="Recipient address">
          <input
            id="lookup-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Look up
        </button>
      </form>
      <ActionStatus action={action} />
      {result ? (
        <RecipientResult email={result.email} data={result.data} reload={() => lookUp(result.email)} />
      ) : null}
    </section>
  );
}
