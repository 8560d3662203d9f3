// Emails: the environment's messages, filtered by the URL's query string, a page at a time.
import { useState } from 'preact/hooks';
import {
  AsyncView,
  DateTime,
  ErrorBox,
  Field,
  PageTitle,
  StatusBadge,
  TableWrap,
  useAsync,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import { href, navigate, useLocation } from '../router.js';
import { type ListMessagesBody, MESSAGE_STATUSES } from '../sdk.js';

type Status = (typeof MESSAGE_STATUSES)[number];

const FILTER_KEYS = ['status', 'templateId', 'to', 'after', 'before', 'metadata', 'bulkJobId'] as const;
type Filters = Record<(typeof FILTER_KEYS)[number], string>;

function readFilters(search: URLSearchParams): Filters {
  const f = {} as Filters;
  for (const k of FILTER_KEYS) f[k] = search.get(k) ?? '';
  return f;
}

/** "a=1, b=2" → {a: '1', b: '2'} (at most 3 pairs). */
export function parseMetadata(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length > 3) throw new Error('Metadata: at most 3 key=value pairs.');
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`Metadata: "${part}" is not key=value.`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** A local date (YYYY-MM-DD) as the instant its day starts. */
function dayStart(date: string): string | undefined {
  if (!date) return undefined;
  const d = new Date(`${date}T00:00:00`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function toBody(f: Filters, cursor: string | null): ListMessagesBody {
  const body: ListMessagesBody = { pageSize: 50, cursor };
  if (f.status) body.status = [f.status as Status];
  if (f.templateId) body.templateId = f.templateId;
  if (f.to) body.to = f.to;
  const after = dayStart(f.after);
  const before = dayStart(f.before);
  if (after) body.createdAfter = after;
  if (before) body.createdBefore = before;
  if (f.metadata) body.metadata = parseMetadata(f.metadata);
  if (f.bulkJobId) body.bulkJobId = f.bulkJobId;
  return body;
}

/** A text input in a Field: the filters' inputs. */
function TextField(props: {
  id: string;
  label: string;
  value: string;
  type?: 'text' | 'email' | 'date';
  onInput: (v: string) => void;
}) {
  return (
    <Field id={props.id} label={props.label}>
      <input
        id={props.id}
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </Field>
  );
}

function FilterForm({ initial }: { initial: Filters }) {
  const [f, setF] = useState(initial);
  const [error, setError] = useState('');
  const set = (k: keyof Filters) => (v: string) => setF({ ...f, [k]: v });
  const submit = (event: Event) => {
    event.preventDefault();
    try {
      parseMetadata(f.metadata);
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    setError('');
    navigate(href('/emails', { ...f }));
  };
  return (
    <form class="filters" onSubmit={submit} aria-label="Filter emails">
      <Field id="f-status" label="Status">
        <select id="f-status" value={f.status} onChange={(e) => set('status')(e.currentTarget.value)}>
          <option value="">Any status</option>
          {MESSAGE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </Field>
      <TextField id="f-template" label="Template ID" value={f.templateId} onInput={set('templateId')} />
      <TextField id="f-to" label="Recipient (to)" type="email" value={f.to} onInput={set('to')} />
      <TextField id="f-after" label="Created after" type="date" value={f.after} onInput={set('after')} />
      <TextField id="f-before" label="Created before" type="date" value={f.before} onInput={set('before')} />
      <TextField id="f-meta" label="Metadata key=value" value={f.metadata} onInput={set('metadata')} />
      <TextField id="f-job" label="Bulk send (job id)" value={f.bulkJobId} onInput={set('bulkJobId')} />
      <div class="actions">
        <button type="submit" class="btn btn-primary">
          Search
        </button>
        <a class="btn" href={href('/emails')}>
          Clear
        </a>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

export function EmailsPage() {
  const { client } = useConsole();
  const { search } = useLocation();
  const key = search.toString();
  const filters = readFilters(search);
  const cursor = search.get('cursor');
  const state = useAsync(() => client.messages.list(toBody(readFilters(search), cursor)), [client, key]);
  return (
    <>
      <PageTitle title="Emails">Emails</PageTitle>
      <FilterForm key={key} initial={filters} />
      <AsyncView
        state={state}
        isEmpty={(d) => d.messages.length === 0}
        empty="No emails match these filters."
      >
        {(d) => (
          <>
            <TableWrap label="Emails">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Message</th>
                    <th scope="col">Status</th>
                    <th scope="col">Template</th>
                    <th scope="col">Recipient</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {d.messages.map((m) => (
                    <tr key={m.messageId}>
                      <td>
                        <a href={href(`/emails/${encodeURIComponent(m.messageId)}`)} class="mono">
                          {m.messageId}
                        </a>
                      </td>
                      <td>
                        <StatusBadge value={m.status} />
                      </td>
                      <td>
                        {m.templateId} <span class="muted">{m.templateVersion}</span>
                      </td>
                      <td>{m.emailMasked}</td>
                      <td>
                        <DateTime iso={m.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <div class="pager">
              {cursor ? (
                <a class="btn" href={href('/emails', { ...filters })}>
                  First page
                </a>
              ) : null}
              {d.nextCursor ? (
                <button
                  type="button"
                  class="btn"
                  onClick={() => navigate(href('/emails', { ...filters, cursor: d.nextCursor ?? undefined }))}
                >
                  Next page
                </button>
              ) : null}
            </div>
          </>
        )}
      </AsyncView>
    </>
  );
}
