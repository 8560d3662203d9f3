// Recipients & suppressions: look up an address, list, add, remove and export suppressions.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import { Pager, useCursorPages } from '../components/pager.js';
import {
  ActionStatus,
  AsyncView,
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
import type { ListSuppressionsBody, ListSuppressionsResult } from '../sdk.js';
import { RecipientLookup } from './recipient-lookup.js';

type Reason = 'hard_bounce' | 'complaint' | 'unsubscribed' | 'manual';
type Suppression = ListSuppressionsResult['suppressions'][number];
const REASONS: Reason[] = ['hard_bounce', 'complaint', 'unsubscribed', 'manual'];

function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function AddSuppression({ onAdded }: { onAdded: () => void }) {
  const { client } = useConsole();
  const [email, setEmail] = useState('');
  const [note, setNote] = useState('');
  const [until, setUntil] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const untilIso = until ? new Date(until).toISOString() : undefined;
      await client.suppressions.add({
        email: email.trim(),
        ...(note.trim() && { note: note.trim() }),
        ...(untilIso && { until: untilIso }),
      });
      setEmail('');
      setNote('');
      setUntil('');
      onAdded();
      return 'Suppression added.';
    });
  };
  return (
    <section aria-labelledby="add-supp-h">
      <h2 id="add-supp-h">Add a suppression</h2>
      <form class="filters" onSubmit={submit}>
        <Field id="supp-email" label="Address">
          <input
            id="supp-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field id="supp-note" label="Note (optional)">
          <input
            id="supp-note"
            type="text"
            maxLength={500}
            value={note}
            onInput={(e) => setNote(e.currentTarget.value)}
          />
        </Field>
        <Field id="supp-until" label="Until (optional)">
          <input
            id="supp-until"
            type="datetime-local"
            value={until}
            onInput={(e) => setUntil(e.currentTarget.value)}
          />
        </Field>
        <SubmitActions busy={action.busy}>Add suppression</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </section>
  );
}

function SuppressionRows({ rows, onRemoved }: { rows: Suppression[]; onRemoved: () => void }) {
  const { client, role } = useConsole();
  const action = useAction();
  const canRemove = roleAllows(role, 'removeSuppression');
  const remove = (s: Suppression) =>
    action.run(async () => {
      if (!window.confirm(`Remove the ${s.reason.replace('_', ' ')} suppression of ${s.email}?`)) return;
      await client.suppressions.remove({ email: s.email, reason: s.reason });
      onRemoved();
      return `Removed ${s.email}.`;
    });
  return (
    <>
      <ActionStatus action={action} />
      <TableWrap label="Suppressions">
        <table>
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Reason</th>
              <th scope="col">Since</th>
              <th scope="col">Until</th>
              <th scope="col">Note</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={`${s.email}-${s.reason}`}>
                <td>{s.email}</td>
                <td>
                  <StatusBadge value={s.reason} />
                </td>
                <td>
                  <DateTime iso={s.createdAt} />
                </td>
                <td>
                  <DateTime iso={s.until} empty="until removed" />
                </td>
                <td>{s.note ?? ''}</td>
                <td>
                  {canRemove && (s.reason === 'manual' || s.reason === 'hard_bounce') ? (
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      aria-label={`Remove ${s.email}`}
                      disabled={action.busy}
                      onClick={() => remove(s)}
                    >
                      Remove
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

function SuppressionList({ version, bump }: { version: number; bump: () => void }) {
  const { client } = useConsole();
  const [reason, setReason] = useState<Reason | ''>('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const filter: Omit<ListSuppressionsBody, 'cursor'> = reason ? { reason: [reason] } : {};
  const state = useAsync(
    () => client.suppressions.list({ ...filter, cursor }),
    [client, reason, cursor, version],
  );
  const exporting = useAction();
  const exportCsv = () =>
    exporting.run(async () => {
      const lines = ['email,reason,created_at,until,note'];
      for await (const s of client.suppressions.listAll({ ...filter, pageSize: 100 }))
        lines.push([s.email, s.reason, s.createdAt, s.until ?? '', s.note ?? ''].map(csvCell).join(','));
      download(`suppressions-${new Date().toISOString().slice(0, 10)}.csv`, `${lines.join('\r\n')}\r\n`);
      return `Exported ${lines.length - 1} suppressions.`;
    });
  return (
    <section aria-labelledby="supp-list-h">
      <h2 id="supp-list-h">Suppressions</h2>
      <div class="toolbar">
        <Field id="supp-reason" label="Reason">
          <select
            id="supp-reason"
            value={reason}
            onChange={(e) => {
              setReason(e.currentTarget.value as Reason | '');
              pages.reset();
            }}
          >
            <option value="">All reasons</option>
            {REASONS.map((r) => (
              <option key={r} value={r}>
                {r.replace('_', ' ')}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" class="btn" disabled={exporting.busy} onClick={exportCsv}>
          Export CSV
        </button>
      </div>
      <ActionStatus action={exporting} />
      <AsyncView state={state} isEmpty={(d) => d.suppressions.length === 0} empty="No suppressions.">
        {(d) => (
          <>
            <SuppressionRows rows={d.suppressions} onRemoved={bump} />
            <Pager pages={pages} nextCursor={d.nextCursor} />
          </>
        )}
      </AsyncView>
    </section>
  );
}

export function SuppressionsPage() {
  const { role } = useConsole();
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  return (
    <>
      <PageTitle title="Recipients & suppressions">Recipients &amp; suppressions</PageTitle>
      <RecipientLookup />
      {roleAllows(role, 'addSuppression') ? <AddSuppression onAdded={bump} /> : null}
      <SuppressionList version={version} bump={bump} />
    </>
  );
}
