// A message's webhook deliveries on its page: each attempt to send one of its events to an
// endpoint of the environment, with the receiver's answer (POST /v1/webhooks/deliveries/list
// {messageId}).
import { AsyncView, DateTime, StatusBadge, TableWrap, useAsync } from '../components/ui.js';
import { useConsole } from '../context.js';

export function MessageWebhooks({ messageId }: { messageId: string }) {
  const { client } = useConsole();
  const state = useAsync(
    () => client.webhooks.deliveries.list({ messageId, pageSize: 50 }),
    [client, messageId],
  );
  return (
    <section aria-labelledby="message-webhooks-h">
      <h2 id="message-webhooks-h">Webhook deliveries</h2>
      <AsyncView
        state={state}
        isEmpty={(d) => d.attempts.length === 0}
        empty="No webhook deliveries of its events."
      >
        {(d) => (
          <TableWrap label="Webhook deliveries of this message’s events">
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Response</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {d.attempts.map((a) => (
                  <tr key={a.attemptId}>
                    <td>{a.eventType}</td>
                    <td class="mono">{a.endpointId}</td>
                    <td>
                      <StatusBadge value={a.outcome} /> attempt {a.attempt}
                    </td>
                    <td>{a.statusCode ?? a.error ?? '—'}</td>
                    <td>
                      <DateTime iso={a.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </AsyncView>
    </section>
  );
}
