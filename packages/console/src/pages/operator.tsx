// Operator: the holder of the service's admin token manages tenants, plans, projects, environments
// and a tenant's first members through /admin/v1. Works signed in (in the shell) or signed out
// (standalone, OperatorStandalone); the token lives in memory only (operator-api.ts).
import { useState } from 'preact/hooks';
import { ActionStatus, Field, Notice, PageTitle, useAction, useAsync } from '../components/ui.js';
import { BASE } from '../router.js';
import { admin, adminToken, forgetAdminToken, holdAdminToken, type Plan } from './operator-api.js';
import { EnvironmentsSection, ProjectsSection } from './operator-projects.js';
import { MembersSection, UsageSection } from './operator-team.js';
import { PlansSection, TenantsSection } from './operator-tenants.js';

function TokenForm({ onOpened, notice }: { onOpened: () => void; notice: string | null }) {
  const [token, setToken] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const value = token.trim();
    action.run(async () => {
      await admin.tenants(value);
      holdAdminToken(value);
      setToken('');
      onOpened();
      return undefined;
    });
  };
  return (
    <>
      <p class="lead">
        Manage tenants, plans, projects and first members with the service's admin token: it is in the data
        directory's <code>admin-token</code> file, or in <code>MAILSVC_ADMIN_TOKEN</code>.
      </p>
      <form class="stack op-token" onSubmit={submit}>
        <label for="op-token">Admin token</label>
        <input
          id="op-token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p class="hint">Kept in this tab's memory only: reloading the page forgets it.</p>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Open operator area
        </button>
      </form>
      <ActionStatus action={action} />
      <Notice message={notice} />
    </>
  );
}

function Selectors(props: {
  tenants: { id: string; name: string }[];
  tenantId: string | undefined;
  onTenant: (id: string) => void;
  projects: { id: string; name: string }[];
  projectId: string | undefined;
  onProject: (id: string) => void;
}) {
  return (
    <>
      <Field id="op-tenant" label="Tenant">
        <select
          id="op-tenant"
          value={props.tenantId ?? ''}
          disabled={props.tenants.length === 0}
          onChange={(e) => props.onTenant(e.currentTarget.value)}
        >
          {props.tenants.length === 0 ? <option value="">No tenants yet</option> : null}
          {props.tenants.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="op-project" label="Project">
        <select
          id="op-project"
          value={props.projectId ?? ''}
          disabled={props.projects.length === 0}
          onChange={(e) => props.onProject(e.currentTarget.value)}
        >
          {props.projects.length === 0 ? <option value="">No projects yet</option> : null}
          {props.projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}

function OperatorArea({ onForget }: { onForget: () => void }) {
  const tenants = useAsync(() => admin.tenants(), []);
  const [tenantId, setTenantId] = useState('');
  const [projectId, setProjectId] = useState('');
  const [createdPlans, setCreatedPlans] = useState<Plan[]>([]);
  const tenantList = tenants.data?.tenants ?? [];
  const tenant = tenantList.find((t) => t.id === tenantId) ?? tenantList[0];
  const projects = useAsync(
    () => (tenant ? admin.projects(tenant.id) : Promise.resolve({ projects: [] })),
    [tenant?.id],
  );
  // While another tenant's projects load, the previous tenant's are not shown as this one's.
  const projectList = (projects.data?.projects ?? []).filter((p) => p.tenantId === tenant?.id);
  const project = projectList.find((p) => p.id === projectId) ?? projectList[0];
  const planIds = [...new Set([...tenantList.map((t) => t.planId), ...createdPlans.map((p) => p.id)])];
  return (
    <>
      <div class="toolbar op-bar">
        <Selectors
          tenants={tenantList}
          tenantId={tenant?.id}
          onTenant={setTenantId}
          projects={projectList}
          projectId={project?.id}
          onProject={setProjectId}
        />
        <div class="actions">
          <button type="button" class="btn" onClick={onForget}>
            Forget token
          </button>
        </div>
      </div>
      <TenantsSection
        state={tenants}
        planIds={planIds}
        onCreated={(t) => {
          setTenantId(t.id);
          tenants.reload();
        }}
      />
      <PlansSection
        tenants={tenantList}
        created={createdPlans}
        onCreated={(p) => setCreatedPlans((list) => [...list.filter((x) => x.id !== p.id), p])}
      />
      <ProjectsSection
        tenant={tenant}
        state={projects}
        onCreated={(p) => {
          setProjectId(p.id);
          projects.reload();
        }}
      />
      <EnvironmentsSection tenant={tenant} project={project} />
      <UsageSection tenant={tenant} />
      <MembersSection tenant={tenant} />
    </>
  );
}

export function OperatorPage() {
  const [open, setOpen] = useState(() => adminToken() !== '');
  const [notice, setNotice] = useState<string | null>(null);
  const forget = () => {
    forgetAdminToken();
    setOpen(false);
    setNotice('The admin token is forgotten.');
  };
  return (
    <>
      <PageTitle title="Operator">Operator</PageTitle>
      {open ? (
        <OperatorArea onForget={forget} />
      ) : (
        <TokenForm
          notice={notice}
          onOpened={() => {
            setNotice(null);
            setOpen(true);
          }}
        />
      )}
    </>
  );
}

/** The operator page for someone not signed in as a member: no shell, a minimal header. */
export function OperatorStandalone() {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <a class="brand" href={`${BASE}/operator`}>
          mailsvc console
        </a>
        <a class="op-sign-in" href={`${BASE}/sign-in`}>
          Sign in as a member
        </a>
      </header>
      <main id="main" tabIndex={-1}>
        <OperatorPage />
      </main>
    </>
  );
}
