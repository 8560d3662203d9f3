// Audit log: the environment's audit events, newest first, a page at a time.
import { useState } from 'preact/hooks';
import { Pager, useCursorPages } from '../components/pager.js';
import { AsyncView, DateTime, Field, PageTitle, TableWrap, useAsync } from '../components/ui.js';
import { useConsole } from '../context.js';

function details(value: Record<string, unknown>): string {
  const entries = Object.entries(value);
  if (entries.length === 0) return '';
  return entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('; ');
}

export function AuditPage() {
  const { client } = useConsole();
  const [text, setText] = useState('');
  const [action, setAction] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const state = useAsync(
    () => client.audit.list({ ...(action && { action: [action] }), cursor, pageSize: 50 }),
    [client, action, cursor],
  );
  const submit = (event: Event) => {
    event.preventDefault();
    setAction(text.trim());
    pages.reset();
  };
  return (
    <>
      <PageTitle title="Audit log">Audit log</PageTitle>
      <form class="inline-form" onSubmit={submit}>
        <Field id="audit-action" label="Action (e.g. api_key.created)">
          <input id="audit-action" type="text" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="btn btn-primary">
          Search
        </button>
      </form>
      <AsyncView state={state} isEmpty={(d) => d.events.length === 0} empty="No audit events.">
        {(d) => (
          <>
            <TableWrap label="Audit events">
              <table>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Actor</th>
                    <th scope="col">Action</th>
                    <th scope="col">Target</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {d.events.map((e) => (
                    <tr key={e.id}>
                      <td>
                        <DateTime iso={e.createdAt} />
                      </td>
                      <td class="mono">{e.actor}</td>
                      <td>
                        <code>{e.action}</code>
                      </td>
                      <td>
                        {e.targetType} <span class="mono muted">{e.targetId}</span>
                      </td>
                      <td class="details-cell">{details(e.details)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <Pager pages={pages} nextCursor={d.nextCursor} />
          </>
        )}
      </AsyncView>
    </>
  );
}
