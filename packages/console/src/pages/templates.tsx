// Templates: the catalogue by category (POST /v1/templates/list), a template as its recipients see
// it with the project's brand, its example data, and a test send of it to the signed-in member.
import { roleAllows } from '@mailsvc/contract/roles';
import { useState } from 'preact/hooks';
import { PreviewFrame } from '../components/preview-frame.js';
import { ActionStatus, AsyncView, PageTitle, useAction, useAsync } from '../components/ui.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';
import type { ListTemplatesResult } from '../sdk.js';

type Template = ListTemplatesResult['templates'][number];

function TemplateView({ t }: { t: Template }) {
  const { client, role, env, me } = useConsole();
  const action = useAction();
  const send = () =>
    action.run(async () => {
      const res = await client.emails.send({
        templateId: t.templateId,
        to: me.email,
        data: t.exampleData,
      } as never);
      return `Sent to ${me.email}: ${res.messageId}.`;
    });
  return (
    <section class="panel" aria-labelledby="template-h">
      <h2 id="template-h">
        {t.templateId} <span class="muted">{t.latestVersion}</span>
      </h2>
      <p>
        {t.description} ({t.category}; versions {t.versions.join(', ')})
      </p>
      {roleAllows(role, 'sendEmail') ? (
        <div class="actions">
          <button type="button" class="btn btn-primary" disabled={action.busy} onClick={send}>
            Send a test to me
          </button>
        </div>
      ) : null}
      <ActionStatus action={action} />
      {action.notice ? (
        <p>
          <a href={href('/emails', { to: me.email })}>See it in Emails</a>
        </p>
      ) : null}
      <PreviewFrame
        src={`/console/preview/template/${encodeURIComponent(t.templateId)}?environmentId=${encodeURIComponent(env.environmentId)}`}
        title={`Preview of ${t.templateId} with this project’s brand`}
      />
      <details>
        <summary>Example data</summary>
        <pre class="code-block">{JSON.stringify(t.exampleData, null, 2)}</pre>
      </details>
    </section>
  );
}

export function TemplatesPage() {
  const { client } = useConsole();
  const state = useAsync(() => client.templates.list(), [client]);
  const [chosen, setChosen] = useState('login-code');
  return (
    <>
      <PageTitle title="Templates">Templates</PageTitle>
      <AsyncView state={state}>
        {(d) => {
          const current = d.templates.find((t) => t.templateId === chosen) ?? d.templates[0];
          return (
            <>
              <div class="field field-wide">
                <label for="template-pick">Template</label>
                <select
                  id="template-pick"
                  value={current?.templateId}
                  onChange={(e) => setChosen(e.currentTarget.value)}
                >
                  {(['security', 'transactional', 'notification'] as const).map((c) => (
                    <optgroup key={c} label={c}>
                      {d.templates
                        .filter((t) => t.category === c)
                        .map((t) => (
                          <option key={t.templateId} value={t.templateId}>
                            {t.templateId}
                          </option>
                        ))}
                    </optgroup>
                  ))}
                </select>
              </div>
              {current ? <TemplateView key={current.templateId} t={current} /> : null}
            </>
          );
        }}
      </AsyncView>
    </>
  );
}
