// Operator: the chosen tenant's projects and the chosen project's environments (list, create).
import { useState } from 'preact/hooks';
import {
  ActionStatus,
  type Async,
  AsyncView,
  DateTime,
  Empty,
  StatusBadge,
  SubmitActions,
  TableWrap,
  useAction,
  useAsync,
} from '../components/ui.js';
import { type AdminEnvironment, type AdminProject, admin, type Tenant } from './operator-api.js';

/** A one-field form: the name of a new record. */
export function NameForm(props: {
  id: string;
  title: string;
  button: string;
  create: (name: string) => Promise<string>;
}) {
  const [name, setName] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const message = await props.create(name.trim());
      setName('');
      return message;
    });
  };
  return (
    <>
      <h3>{props.title}</h3>
      <form class="filters" onSubmit={submit}>
        <div class="field">
          <label for={props.id}>Name</label>
          <input
            id={props.id}
            type="text"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <SubmitActions busy={action.busy}>{props.button}</SubmitActions>
      </form>
      <ActionStatus action={action} />
    </>
  );
}

/** The rows of projects and environments alike: name, id, status, created. */
function RecordTable(props: { label: string; rows: (AdminProject | AdminEnvironment)[]; sending?: boolean }) {
  return (
    <TableWrap label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">Status</th>
            {props.sending ? <th scope="col">Sending</th> : null}
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.id}>
              <td class="op-name">{r.name}</td>
              <td>
                <code>{r.id}</code>
              </td>
              <td>
                <StatusBadge value={r.status} />
              </td>
              {props.sending && 'sendingStatus' in r ? (
                <td>
                  <StatusBadge value={r.sendingStatus} />
                </td>
              ) : null}
              <td>
                <DateTime iso={r.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function ProjectsSection(props: {
  tenant: Tenant | undefined;
  state: Async<{ projects: AdminProject[] }>;
  onCreated: (p: AdminProject) => void;
}) {
  const { tenant } = props;
  return (
    <section aria-labelledby="op-projects-h">
      <h2 id="op-projects-h">Projects</h2>
      {tenant ? (
        <>
          <p class="lead">Of the tenant {tenant.name}.</p>
          <AsyncView
            state={props.state}
            isEmpty={(d) => d.projects.every((p) => p.tenantId !== tenant.id)}
            empty="No projects yet."
          >
            {(d) => (
              <RecordTable label="Projects" rows={d.projects.filter((p) => p.tenantId === tenant.id)} />
            )}
          </AsyncView>
          <NameForm
            id="op-project-name"
            title={`Create a project in ${tenant.name}`}
            button="Create project"
            create={async (name) => {
              const res = await admin.createProject(tenant.id, name);
              props.onCreated(res.project);
              return `Project ${res.project.name} created (${res.project.id}).`;
            }}
          />
        </>
      ) : (
        <Empty>Create a tenant first.</Empty>
      )}
    </section>
  );
}

function ProjectEnvironments({ project }: { project: AdminProject }) {
  const state = useAsync(() => admin.environments(project.id), [project.id]);
  return (
    <>
      <p class="lead">Of the project {project.name}.</p>
      <AsyncView state={state} isEmpty={(d) => d.environments.length === 0} empty="No environments yet.">
        {(d) => <RecordTable label="Environments" rows={d.environments} sending />}
      </AsyncView>
      <NameForm
        id="op-environment-name"
        title={`Create an environment in ${project.name}`}
        button="Create environment"
        create={async (name) => {
          const res = await admin.createEnvironment(project.id, name);
          state.reload();
          return `Environment ${res.environment.name} created (${res.environment.id}).`;
        }}
      />
    </>
  );
}

export function EnvironmentsSection(props: {
  tenant: Tenant | undefined;
  project: AdminProject | undefined;
}) {
  return (
    <section aria-labelledby="op-environments-h">
      <h2 id="op-environments-h">Environments</h2>
      {props.project ? (
        <ProjectEnvironments key={props.project.id} project={props.project} />
      ) : (
        <Empty>{props.tenant ? 'Create a project first.' : 'Create a tenant first.'}</Empty>
      )}
    </section>
  );
}
