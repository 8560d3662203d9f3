// Bulk sends: one notification template to a group and/or named contacts. A dry run counts who
// would get it and who is skipped and why; only then may a member whose role sends queue it, and
// the job's progress is shown until it ends (docs/bulk.md).
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import { ActionStatus, ErrorBox, Field, PageTitle, useAction, useAsync } from '../components/ui.js';
import { useConsole } from '../context.js';
import { href, navigate, useLocation } from '../router.js';
import type { Mailsvc } from '../sdk.js';
import { BulkJobView, SkipTable } from './bulk-job.js';
import {
  BULK_TEMPLATES,
  type BulkForm,
  type BulkSendBody,
  buildRequest,
  INITIAL_FORM,
  newIdempotencyKey,
  type SkipCounts,
  skippedTotal,
} from './bulk-request.js';

type Group = Awaited<ReturnType<Mailsvc['contacts']['groups']['list']>>['groups'][number];

interface Preview {
  /** The form the dry run was made for: Send is offered only while it is unchanged. */
  formKey: string;
  body: BulkSendBody;
  eligible: number;
  skipped: SkipCounts;
  idempotencyKey: string | undefined;
}

function BulkFields(props: { form: BulkForm; set: (patch: Partial<BulkForm>) => void; groups: Group[] }) {
  const { form, set } = props;
  return (
    <>
      <Field id="bulk-template" label="Template">
        <select
          id="bulk-template"
          value={form.templateId}
          onChange={(e) => set({ templateId: e.currentTarget.value })}
        >
          {BULK_TEMPLATES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </Field>
      <Field id="bulk-group" label="Group">
        <select
          id="bulk-group"
          value={form.groupSlug}
          onChange={(e) => set({ groupSlug: e.currentTarget.value })}
        >
          <option value="">No group (named contacts only)</option>
          {props.groups.map((g) => (
            <option key={g.slug} value={g.slug}>
              {g.name} ({g.slug}, {g.contactCount} contacts)
            </option>
          ))}
        </select>
      </Field>
      <div class="field field-wide">
        <label for="bulk-contacts">Contacts</label>
        <textarea
          id="bulk-contacts"
          rows={3}
          spellcheck={false}
          aria-describedby="bulk-contacts-help"
          value={form.contacts}
          onInput={(e) => set({ contacts: e.currentTarget.value })}
        />
        <span class="hint" id="bulk-contacts-help">
          Optional: contact emails or ct_… ids, separated by spaces, commas or lines (at most 1,000). With a
          group too, both are sent to, each contact once.
        </span>
      </div>
      <div class="field field-wide">
        <label for="bulk-data">Template data (JSON)</label>
        <textarea
          id="bulk-data"
          class="code-input"
          rows={8}
          spellcheck={false}
          aria-describedby="bulk-data-help"
          value={form.dataText}
          onInput={(e) => set({ dataText: e.currentTarget.value })}
        />
        <span class="hint" id="bulk-data-help">
          Text fields may hold {'{{contact.name}}'}, {'{{contact.email}}'} and{' '}
          {'{{contact.customFields.KEY}}'}.
        </span>
      </div>
    </>
  );
}

function DryRunResult(props: {
  preview: Preview;
  stale: boolean;
  onSend: (() => void) | null;
  busy: boolean;
}) {
  const { preview, stale } = props;
  return (
    <section class="panel" aria-labelledby="bulk-dry-run-h">
      <h2 id="bulk-dry-run-h">Dry run</h2>
      <p>
        Would be sent to <strong>{preview.eligible}</strong> {preview.eligible === 1 ? 'contact' : 'contacts'}
        ; {skippedTotal(preview.skipped)} skipped.
      </p>
      <SkipTable skipped={preview.skipped} label="Skipped by the dry run" />
      {stale ? (
        <p class="notice">The form changed since this dry run: run it again before sending.</p>
      ) : preview.eligible === 0 ? (
        <p class="notice">Nobody would receive it: there is nothing to send.</p>
      ) : props.onSend ? (
        <div class="actions">
          <button type="button" class="btn btn-primary" disabled={props.busy} onClick={props.onSend}>
            Send
          </button>
        </div>
      ) : (
        <p class="muted">Your role may run a dry run but not send.</p>
      )}
    </section>
  );
}

function BulkSendForm({ onSent }: { onSent: (jobId: string) => void }) {
  const { client, env, role } = useConsole();
  const groups = useAsync(() => client.contacts.groups.list(), [client]);
  const [form, setForm] = useState<BulkForm>(INITIAL_FORM);
  const [preview, setPreview] = useState<Preview | null>(null);
  const action = useAction();
  const formKey = JSON.stringify(form);
  const set = (patch: Partial<BulkForm>) => setForm((f) => ({ ...f, ...patch }));
  const dryRun = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const req = buildRequest(form, env);
      if (!req.ok) throw new Error(req.error);
      const res = await client.contacts.sendDryRun(req.body);
      const { eligible, skipped } = res;
      setPreview({ formKey, body: req.body, eligible, skipped, idempotencyKey: newIdempotencyKey() });
      return `Dry run: ${eligible} would be sent, ${skippedTotal(skipped)} skipped.`;
    });
  };
  const send = () =>
    action.run(async () => {
      if (!preview) return;
      const who = `${preview.eligible} ${preview.eligible === 1 ? 'contact' : 'contacts'}`;
      if (!window.confirm(`Send ${preview.body.templateId} to ${who} now? This cannot be undone.`)) return;
      const key = preview.idempotencyKey;
      const res = await client.contacts.send(preview.body, key ? { idempotencyKey: key } : {});
      setPreview(null);
      onSent(res.jobId);
      return `${res.queued} messages queued${res.idempotent ? ' (by the same send made before)' : ''}: job ${res.jobId}.`;
    });
  const canSend = roleAllows(role, 'sendToContacts');
  return (
    <section aria-labelledby="bulk-form-h">
      <h2 id="bulk-form-h">New bulk send</h2>
      <ErrorBox error={groups.error} />
      <form class="filters bulk-form" onSubmit={dryRun}>
        <BulkFields form={form} set={set} groups={groups.data?.groups ?? []} />
        <div class="actions">
          <button type="submit" class="btn" disabled={action.busy}>
            Dry run
          </button>
        </div>
      </form>
      <ActionStatus action={action} />
      {preview ? (
        <DryRunResult
          preview={preview}
          stale={preview.formKey !== formKey}
          onSend={canSend ? send : null}
          busy={action.busy}
        />
      ) : null}
    </section>
  );
}

export function BulkPage() {
  const { search } = useLocation();
  const jobId = search.get('job');
  return (
    <>
      <PageTitle title="Bulk sends">Bulk sends</PageTitle>
      <p class="lead">
        One notification template to a group of contacts or contacts you name. The same consent rules as a
        single send apply to every recipient; run a dry run first to see who would get it.
      </p>
      <BulkSendForm onSent={(id) => navigate(href('/bulk', { job: id }), true)} />
      {jobId ? <BulkJobView key={jobId} jobId={jobId} /> : null}
    </>
  );
}
