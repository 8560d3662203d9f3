// Contacts: import a CSV file (read in the browser, sent by contact-import.ts a batch at a time),
// with its progress, the rows refused, and an optional group every imported contact joins.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox, errorMessage, Field, TableWrap } from '../components/ui.js';
import { useConsole } from '../context.js';
import {
  GROUP_SLUG,
  IMPORT_BATCH_SIZE,
  type ImportPlan,
  type ImportState,
  planImport,
  type Refusal,
  runImport,
} from './contact-import.js';

/** Refused rows shown at most (the count says how many there are). */
const REFUSED_SHOWN = 500;

interface Run {
  total: number;
  state: ImportState;
  running: boolean;
  notes: string[];
}

function RefusedRows({ refused }: { refused: Refusal[] }) {
  if (refused.length === 0) return null;
  const shown = refused.slice(0, REFUSED_SHOWN);
  return (
    <>
      <h3 id="import-refused-h">Refused rows</h3>
      {refused.length > shown.length ? (
        <p class="muted">
          The first {shown.length} of {refused.length} refused rows.
        </p>
      ) : null}
      <TableWrap label="Refused rows">
        <table>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Email</th>
              <th scope="col" class="reason-col">
                Reason
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.row}>
                <td>{r.row}</td>
                <td>{r.email}</td>
                <td>{r.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}

function ImportProgress({ run }: { run: Run | null }) {
  const done = run ? run.state.imported + run.state.refused.length : 0;
  return (
    <>
      {run ? (
        <div class="import-progress">
          <label for="import-progress">Import progress</label>
          <progress id="import-progress" max={Math.max(run.total, 1)} value={done}>
            {done} of {run.total}
          </progress>
        </div>
      ) : null}
      <p class="import-status" aria-live="polite">
        {run ? `${run.state.imported} of ${run.total} imported, ${run.state.refused.length} refused` : ''}
      </p>
      {run && run.notes.length > 0 ? (
        <ul class="import-notes">
          {run.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      {run ? <RefusedRows refused={run.state.refused} /> : null}
    </>
  );
}

/** The file and group chosen → the plan, or why nothing can be imported. */
async function readPlan(file: File | null, groupSlug: string): Promise<ImportPlan | string> {
  if (!file) return 'Choose a CSV file to import.';
  if (groupSlug && !GROUP_SLUG.test(groupSlug))
    return 'Group: a group slug is lowercase letters, digits and hyphens, at most 63, starting with a letter or digit.';
  try {
    return planImport(await file.text());
  } catch (e) {
    return errorMessage(e);
  }
}

function useImport(onImported: () => void) {
  const { client } = useConsole();
  const [error, setError] = useState<string | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const unmounted = useRef(false);
  const stopRequested = useRef(false);
  useEffect(
    () => () => {
      unmounted.current = true;
    },
    [],
  );
  const start = async (file: File | null, groupSlug: string) => {
    setError(null);
    stopRequested.current = false;
    const plan = await readPlan(file, groupSlug);
    if (typeof plan === 'string') return setError(plan);
    const total = plan.rows.length + plan.refused.length;
    setRun({ total, state: { imported: 0, refused: plan.refused }, running: true, notes: plan.notes });
    const update = (state: ImportState) => setRun((r) => r && { ...r, state });
    const isStopped = () => unmounted.current || stopRequested.current;
    try {
      const state = await runImport(client, plan, groupSlug, update, isStopped);
      if (stopRequested.current) setError(`The import was stopped after ${state.imported} rows.`);
    } catch (e) {
      setError(`The import stopped: ${errorMessage(e)}`);
    } finally {
      setRun((r) => r && { ...r, running: false });
      if (!unmounted.current) onImported();
    }
  };
  const stop = () => {
    stopRequested.current = true;
  };
  return { error, run, start, stop };
}

export function ContactImport({ onImported }: { onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [group, setGroup] = useState('');
  const { error, run, start, stop } = useImport(onImported);
  const running = run?.running ?? false;
  const submit = (event: Event) => {
    event.preventDefault();
    if (!running) void start(file, group.trim());
  };
  return (
    <section aria-labelledby="import-h">
      <h2 id="import-h">Import contacts</h2>
      <p class="lead" id="import-help">
        A CSV file whose first row names the columns: <code>email</code> (required), <code>name</code>,{' '}
        <code>groupSlugs</code> (slugs separated by spaces or semicolons) and any other column as a custom
        field. An empty cell changes nothing. Rows are sent {IMPORT_BATCH_SIZE} at a time.
      </p>
      <form class="filters" onSubmit={submit} aria-describedby="import-help">
        <div class="field field-wide">
          <label for="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </div>
        <Field id="import-group" label="Group">
          <input
            id="import-group"
            type="text"
            placeholder="optional, e.g. beta-testers"
            aria-describedby="import-group-help"
            value={group}
            onInput={(e) => setGroup(e.currentTarget.value)}
          />
          <span class="hint" id="import-group-help">
            Every imported contact joins it (created when missing); their other groups stay.
          </span>
        </Field>
        <div class="actions">
          <button type="submit" class="btn btn-primary" disabled={running}>
            Import
          </button>
          {running ? (
            <button type="button" class="btn" onClick={stop}>
              Stop
            </button>
          ) : null}
        </div>
      </form>
      <ErrorBox error={error} />
      <ImportProgress run={run} />
    </section>
  );
}
