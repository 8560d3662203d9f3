// Small shared pieces: async loading, alerts, empty states, dates, copy buttons, table wrappers, form fields.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change; the latest call wins. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const id = ++run.current;
    setState((s) => ({ data: s.data, loading: true }));
    load().then(
      (data) => {
        if (id === run.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (id === run.current) setState({ error, loading: false });
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** An action's running state and its error or success message. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = useCallback(async (fn: () => Promise<string | undefined>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const message = await fn();
      if (message) setNotice(message);
      return true;
    } catch (e) {
      setError(errorMessage(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, notice, run, setNotice, setError };
}

export function ErrorBox({ error }: { error: unknown }) {
  if (error === null || error === undefined || error === '') return null;
  return (
    <div class="alert alert-error" role="alert">
      {typeof error === 'string' ? error : errorMessage(error)}
    </div>
  );
}

export function Notice({ message }: { message: string | null }) {
  return (
    <p class="notice" aria-live="polite">
      {message ?? ''}
    </p>
  );
}

export function ActionStatus({ action }: { action: { error: string | null; notice: string | null } }) {
  return (
    <>
      <ErrorBox error={action.error} />
      <Notice message={action.notice} />
    </>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** The loading, error and empty states around a list. */
export function AsyncView<T>(props: {
  state: Async<T>;
  isEmpty?: (data: T) => boolean;
  empty?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  const { state } = props;
  if (state.error) return <ErrorBox error={state.error} />;
  if (state.data === undefined) return <Loading />;
  if (props.isEmpty?.(state.data)) return <Empty>{props.empty ?? 'Nothing here yet.'}</Empty>;
  return <>{props.children(state.data)}</>;
}

export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    // biome-ignore lint/a11y/useSemanticElements: the console's table wrapper is a div region by contract
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function DateTime({ iso, empty = '—' }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span>{empty}</span>;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={iso} title={iso}>
      {dateFormat.format(d)}
    </time>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone('idle'), 2000);
  };
  return (
    <button type="button" class="btn btn-small" onClick={copy}>
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed' : label}
    </button>
  );
}

/** A secret shown once, with a copy button. */
export function SecretBox(props: {
  title: string;
  secret: string;
  level?: 2 | 3 | 4;
  children?: ComponentChildren;
}) {
  const { title, secret, children } = props;
  const H = `h${props.level ?? 2}` as 'h2';
  return (
    <section class="secret-box" aria-label={title}>
      <H>{title}</H>
      <p>Copy it now: it will not be shown again.</p>
      <div class="secret-row">
        <code data-testid="new-secret" class="secret">
          {secret}
        </code>
        <CopyButton text={secret} />
      </div>
      {children}
    </section>
  );
}

export function StatusBadge({ value }: { value: string }) {
  return <span class={`badge badge-${value.replace(/[^a-z_]/gi, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

/** The page's title and h1 (focused after a navigation, for screen readers). */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · mailsvc console`;
    if (document.activeElement && document.activeElement !== document.body) {
      const a = document.activeElement;
      if (a.closest('nav') || a.tagName === 'A') ref.current?.focus();
    }
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** A 6-digit code field: the mailed sign-in code, or an authenticator app's. */
export function DigitsField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value.replace(/\D/g, ''))}
      />
    </>
  );
}

/** A form field: its label (for the control with `id`) and the control. */
export function Field(props: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
    </div>
  );
}

/** A form's submit button, off while its action runs. */
export function SubmitActions(props: { busy: boolean; children: ComponentChildren }) {
  return (
    <div class="actions">
      <button type="submit" class="btn btn-primary" disabled={props.busy}>
        {props.children}
      </button>
    </div>
  );
}
