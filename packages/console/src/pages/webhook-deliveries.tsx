// The delivery attempts of one webhook endpoint, newest first, with replay.
import { roleAllows } from '@mailsvc/contract/roles';
import { Pager, useCursorPages } from '../components/pager.js';
import {
  ActionStatus,
  AsyncView,
  DateTime,
  StatusBadge,
  TableWrap,
  useAction,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import type { ListWebhookDeliveriesResult } from '../sdk.js';

export function Deliveries({ endpointId, label }: { endpointId: string; label: string }) {
  const { client, role } = useConsole();
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const state = useAsync(
    () => client.webhooks.deliveries.list({ endpointId, cursor, pageSize: 25 }),
    [client, endpointId, cursor],
  );
  const action = useAction();
  const canReplay = roleAllows(role, 'replayWebhookDeliveries');
  const replay = (eventId: string) =>
    action.run(async () => {
      const res = await client.webhooks.deliveries.replay({ endpointId, eventId });
      state.reload();
      return `Replay queued (${res.queued}).`;
    });
  return (
    <div class="deliveries">
      <div class="toolbar">
        <button type="button" class="btn btn-small" onClick={state.reload}>
          Refresh deliveries
        </button>
      </div>
      <ActionStatus action={action} />
      <AsyncView state={state} isEmpty={(d) => d.attempts.length === 0} empty="No deliveries yet.">
        {(d) => (
          <>
            <TableWrap label={`Deliveries of ${label}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Response code</th>
                    <th scope="col">Attempt</th>
                    <th scope="col">When</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {d.attempts.map((a) => (
                    <AttemptRow
                      key={a.attemptId}
                      a={a}
                      onReplay={canReplay ? () => replay(a.eventId) : null}
                      busy={action.busy}
                    />
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <Pager pages={pages} nextCursor={d.nextCursor} />
          </>
        )}
      </AsyncView>
    </div>
  );
}

type Attempt = ListWebhookDeliveriesResult['attempts'][number];

function AttemptRow({ a, onReplay, busy }: { a: Attempt; onReplay: (() => void) | null; busy: boolean }) {
  return (
    <tr>
      <td>
        {a.eventType}
        <div class="muted mono">{a.eventId}</div>
      </td>
      <td>
        <StatusBadge value={a.outcome} />
        {a.error ? <div class="muted">{a.error}</div> : null}
      </td>
      <td>{a.statusCode ?? '—'}</td>
      <td>
        {a.attempt}
        {a.nextAttemptAt ? (
          <div class="muted">
            next <DateTime iso={a.nextAttemptAt} />
          </div>
        ) : null}
      </td>
      <td>
        <DateTime iso={a.createdAt} />
      </td>
      <td>
        {onReplay ? (
          <button type="button" class="btn btn-small" disabled={busy} onClick={onReplay}>
            Replay
          </button>
        ) : null}
      </td>
    </tr>
  );
}
