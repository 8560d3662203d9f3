// One message: its metadata, its timeline and, while it waits, a Cancel button.
import { roleAllows } from '@mailsvc/contract/roles';
import { PreviewFrame } from '../components/preview-frame.js';
import {
  ActionStatus,
  AsyncView,
  DateTime,
  PageTitle,
  StatusBadge,
  useAction,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';
import type { GetMessageResult } from '../sdk.js';
import { MessageWebhooks } from './message-webhooks.js';

type Message = GetMessageResult['message'];
type TimelineEvent = GetMessageResult['events'][number];

function Facts({ m }: { m: Message }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge value={m.status} />
      </dd>
      <dt>Template</dt>
      <dd>
        {m.templateId} (version {m.templateVersion}, {m.category})
      </dd>
      <dt>Recipient</dt>
      <dd>{m.emailMasked}</dd>
      <dt>Created</dt>
      <dd>
        <DateTime iso={m.createdAt} />
      </dd>
      {m.scheduledAt ? (
        <>
          <dt>Scheduled for</dt>
          <dd>
            <DateTime iso={m.scheduledAt} />
          </dd>
        </>
      ) : null}
      <dt>Sent</dt>
      <dd>
        <DateTime iso={m.sentAt} />
      </dd>
      <dt>Delivered</dt>
      <dd>
        <DateTime iso={m.deliveredAt} />
      </dd>
      <dt>Attempts</dt>
      <dd>{m.attempts}</dd>
      <dt>Expires</dt>
      <dd>
        <DateTime iso={m.expiresAt} />
      </dd>
      {m.bulkJobId ? (
        <>
          <dt>Bulk send</dt>
          <dd class="mono">{m.bulkJobId}</dd>
        </>
      ) : null}
      {m.error ? (
        <>
          <dt>Error</dt>
          <dd>
            <code>{m.error.code}</code>
            {m.error.reason ? ` (${m.error.reason})` : ''}: {m.error.message}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

function Metadata({ metadata }: { metadata: Record<string, string> }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <p class="empty">No metadata.</p>;
  return (
    <dl class="facts">
      {entries.map(([k, v]) => (
        <div key={k} class="fact">
          <dt class="mono">{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function EventItem({ e }: { e: TimelineEvent }) {
  const smtp = [e.smtpCode, e.enhancedCode].filter((x) => x !== undefined).join(' ');
  return (
    <li>
      <div>
        <StatusBadge value={e.type} /> <DateTime iso={e.at} />
        {e.attempt !== undefined ? <span class="muted"> attempt {e.attempt}</span> : null}
      </div>
      {smtp || e.response ? (
        <div class="mono wrap">
          SMTP reply: {smtp} {e.response ?? ''}
        </div>
      ) : null}
      {e.reason ? <div>Reason: {e.reason}</div> : null}
      {e.scheduledAt ? (
        <div>
          Scheduled for <DateTime iso={e.scheduledAt} />
        </div>
      ) : null}
      {e.nextAttemptAt ? (
        <div>
          Next attempt <DateTime iso={e.nextAttemptAt} />
        </div>
      ) : null}
    </li>
  );
}

export function MessagePage({ messageId }: { messageId: string }) {
  const { client, role, env } = useConsole();
  const state = useAsync(() => client.messages.get({ messageId }), [client, messageId]);
  const action = useAction();
  const cancel = () =>
    action.run(async () => {
      if (!window.confirm('Cancel this message? It will not be sent.')) return;
      await client.messages.cancel({ messageId });
      state.reload();
      return 'Message canceled.';
    });
  return (
    <>
      <p>
        <a href={href('/emails')}>← All emails</a>
      </p>
      <PageTitle title={`Email ${messageId}`}>
        Email <span class="mono wrap">{messageId}</span>
      </PageTitle>
      <ActionStatus action={action} />
      <AsyncView state={state}>
        {(d) => (
          <>
            {(d.message.status === 'scheduled' || d.message.status === 'queued') &&
            roleAllows(role, 'cancelMessage') ? (
              <div class="actions">
                <button type="button" class="btn btn-danger" disabled={action.busy} onClick={cancel}>
                  Cancel
                </button>
              </div>
            ) : null}
            <section aria-labelledby="details-h">
              <h2 id="details-h">Details</h2>
              <Facts m={d.message} />
            </section>
            <section aria-labelledby="meta-h">
              <h2 id="meta-h">Metadata</h2>
              <Metadata metadata={d.message.metadata} />
            </section>
            {roleAllows(role, 'sendEmail') ? (
              <section aria-labelledby="preview-h">
                <h2 id="preview-h">Preview</h2>
                <PreviewFrame
                  src={`/console/preview/message/${encodeURIComponent(d.message.messageId)}?environmentId=${encodeURIComponent(env.environmentId)}`}
                  title="The message as rendered from its template and data"
                />
              </section>
            ) : null}
            <section aria-labelledby="timeline-h">
              <h2 id="timeline-h">Timeline</h2>
              {d.events.length === 0 ? (
                <p class="empty">No events yet.</p>
              ) : (
                <ol class="timeline">
                  {d.events.map((e, i) => (
                    <EventItem key={`${e.at}-${i}`} e={e} />
                  ))}
                </ol>
              )}
            </section>
            {roleAllows(role, 'listWebhookDeliveries') ? (
              <MessageWebhooks messageId={d.message.messageId} />
            ) : null}
          </>
        )}
      </AsyncView>
    </>
  );
}
