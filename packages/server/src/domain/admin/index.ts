// The admin use-cases by name. The CLI (`mailsvc admin <group> <action>`) and the admin API
// (`POST /admin/v1/<group>/<action>`) both dispatch through this table.
import type { Static, TObject } from '@sinclair/typebox';
import { inTransaction } from '../../db/transaction.js';
import type { KeyLookupCache } from '../auth/authenticate.js';
import { BootstrapInput, bootstrap } from './bootstrap.js';
import {
  AddSesTopicInput,
  addSesTopic,
  CreateIntakeSecretInput,
  createIntakeSecret,
  RemoveSesTopicInput,
  RevokeIntakeSecretInput,
  removeSesTopic,
  revokeIntakeSecret,
  ShowEventsInput,
  showEvents,
} from './events.js';
import { cancelJob, JobInput, resumeJob, showJob } from './jobs.js';
import {
  AddDomainInput,
  addDomain,
  CreateKeyInput,
  createKey,
  ListDomainsInput,
  ListKeysInput,
  listDomains,
  listKeys,
  RevokeKeyInput,
  revokeKey,
  SetDomainStatusInput,
  SetReturnPathInput,
  ShowUsageInput,
  setDomainStatus,
  setReturnPath,
  showUsage,
} from './keys-domains-usage.js';
import {
  InviteMemberInput,
  inviteMemberByOperator,
  ListMembersInput,
  listTenantMembersByOperator,
} from './members.js';
import {
  CreatePlanInput,
  createPlan,
  ListPlansInput,
  listPlans,
  UpdatePlanInput,
  updatePlan,
} from './plans.js';
import {
  ClearComplaintInput,
  clearComplaint,
  ListAuditInput,
  listAudit,
  ShowRecipientInput,
  SuppressRecipientInput,
  showRecipient,
  suppressRecipient,
  UnsuppressRecipientInput,
  unsuppressRecipient,
} from './recipients.js';
import type { AdminDeps } from './scope.js';
import { ExportSuppressionsInput, exportSuppressions, suppressionsCsv } from './suppressions.js';
import {
  CreateEnvironmentInput,
  CreateProjectInput,
  CreateTenantInput,
  createEnvironment,
  createProject,
  createTenant,
  DeleteEnvironmentInput,
  DeleteProjectInput,
  DeleteTenantInput,
  deleteEnvironment,
  deleteProject,
  deleteTenant,
  ListEnvironmentsInput,
  ListProjectsInput,
  ListTenantsInput,
  listEnvironments,
  listProjects,
  listTenants,
  UpdateEnvironmentInput,
  UpdateProjectInput,
  UpdateTenantInput,
  updateEnvironment,
  updateProject,
  updateTenant,
} from './tenancy.js';

export type AdminUseCaseDeps = AdminDeps & { keyCache?: KeyLookupCache };

export interface AdminCommand<S extends TObject = TObject> {
  summary: string;
  input: S;
  /** Input properties given as positional CLI arguments, in order. */
  positional?: (keyof Static<S> & string)[];
  /** Boolean input properties given as bare CLI flags (`--include-deleted`), true when present. */
  switches?: (keyof Static<S> & string)[];
  /** The CLI's output without --json, when not the default listing (a CSV export). */
  format?: (result: Record<string, unknown>) => string;
  run(deps: AdminUseCaseDeps, input: Static<S>, actor: string): Promise<Record<string, unknown>>;
}

// Every admin command runs in one transaction, so a change and its audit event are written
// together or not at all. Every admin change clears this process's key cache, so its effect on
// authentication is immediate here; other replicas see it when their cache entries expire (≤ 5 s).
const command = <S extends TObject>(c: AdminCommand<S>): AdminCommand =>
  ({
    ...c,
    async run(deps, input, actor) {
      const result = await inTransaction(deps.db, (trx) =>
        c.run({ ...deps, db: trx }, input as Static<S>, actor),
      );
      deps.keyCache?.clear();
      return result;
    },
  }) as AdminCommand;

export const adminCommands: Record<string, AdminCommand> = {
  bootstrap: command({
    summary: 'Ensure the demo plan, tenant, project and environment exist and create a new API key for it',
    input: BootstrapInput,
    run: bootstrap,
  }),
  'plans.create': command({ summary: 'Create a plan', input: CreatePlanInput, run: createPlan }),
  'plans.update': command({ summary: 'Change a plan', input: UpdatePlanInput, run: updatePlan }),
  'plans.list': command({ summary: 'List the plans, by id', input: ListPlansInput, run: listPlans }),
  'tenants.create': command({ summary: 'Create a tenant', input: CreateTenantInput, run: createTenant }),
  'tenants.update': command({
    summary: 'Change a tenant',
    input: UpdateTenantInput,
    positional: ['id'],
    run: updateTenant,
  }),
  'tenants.delete': command({
    summary: 'Delete a tenant (soft)',
    input: DeleteTenantInput,
    positional: ['id'],
    run: deleteTenant,
  }),
  'tenants.list': command({
    summary: 'List the tenants, oldest first (deleted ones too with --include-deleted)',
    input: ListTenantsInput,
    switches: ['includeDeleted'],
    run: listTenants,
  }),
  'projects.create': command({ summary: 'Create a project', input: CreateProjectInput, run: createProject }),
  'projects.update': command({
    summary: 'Change a project',
    input: UpdateProjectInput,
    positional: ['id'],
    run: updateProject,
  }),
  'projects.delete': command({
    summary: 'Delete a project (soft)',
    input: DeleteProjectInput,
    positional: ['id'],
    run: deleteProject,
  }),
  'projects.list': command({
    summary: "List a tenant's projects, oldest first",
    input: ListProjectsInput,
    run: listProjects,
  }),
  'environments.create': command({
    summary: 'Create an environment',
    input: CreateEnvironmentInput,
    run: createEnvironment,
  }),
  'environments.update': command({
    summary: 'Change an environment',
    input: UpdateEnvironmentInput,
    positional: ['id'],
    run: updateEnvironment,
  }),
  'environments.delete': command({
    summary: 'Delete an environment (soft)',
    input: DeleteEnvironmentInput,
    positional: ['id'],
    run: deleteEnvironment,
  }),
  'environments.list': command({
    summary: "List a project's environments, oldest first",
    input: ListEnvironmentsInput,
    run: listEnvironments,
  }),
  'keys.create': command({
    summary: 'Create an API key (printed once)',
    input: CreateKeyInput,
    run: createKey,
  }),
  'keys.revoke': command({
    summary: 'Revoke an API key',
    input: RevokeKeyInput,
    positional: ['id'],
    run: revokeKey,
  }),
  'keys.list': command({ summary: "List an environment's API keys", input: ListKeysInput, run: listKeys }),
  'domains.add': command({
    summary:
      'Register a sending domain; generates its DKIM key (RSA-2048) and prints the DNS record to publish',
    input: AddDomainInput,
    run: addDomain,
  }),
  'domains.set-status': command({
    summary: "Set a sending domain's status",
    input: SetDomainStatusInput,
    positional: ['domain', 'status'],
    run: setDomainStatus,
  }),
  'domains.set-return-path': command({
    summary:
      'Mark the return path bounces.<domain> published (MX to mailsvc inbound, SPF) or not; only then does its mail bounce there',
    input: SetReturnPathInput,
    positional: ['domain', 'status'],
    run: setReturnPath,
  }),
  'domains.list': command({ summary: 'List sending domains', input: ListDomainsInput, run: listDomains }),
  'usage.show': command({
    summary: "Show a tenant's usage this month",
    input: ShowUsageInput,
    run: showUsage,
  }),
  'events.create-secret': command({
    summary:
      'Create the Standard Webhooks secret of POST /v1/events/intake for an environment (shown once; the previous one keeps working 24 h)',
    input: CreateIntakeSecretInput,
    run: createIntakeSecret,
  }),
  'events.add-ses-topic': command({
    summary: 'Accept Amazon SES notifications from this SNS topic (POST /v1/events/ses) for an environment',
    input: AddSesTopicInput,
    run: addSesTopic,
  }),
  'events.revoke-secret': command({
    summary: 'End an intake secret now (a leaked one); events signed with it are refused',
    input: RevokeIntakeSecretInput,
    positional: ['id'],
    run: revokeIntakeSecret,
  }),
  'events.remove-ses-topic': command({
    summary: 'Stop accepting SES notifications from an SNS topic',
    input: RemoveSesTopicInput,
    run: removeSesTopic,
  }),
  'events.show': command({
    summary: "Show an environment's relay event endpoints, intake secrets (ids and dates) and SES topics",
    input: ShowEventsInput,
    run: showEvents,
  }),
  'recipients.show': command({
    summary: "Show a recipient's state and recent messages in an environment",
    input: ShowRecipientInput,
    run: showRecipient,
  }),
  'recipients.suppress': command({
    summary:
      'Refuse every template to a recipient for --days days (default 30): a manual suppression, audited',
    input: SuppressRecipientInput,
    run: suppressRecipient,
  }),
  'recipients.unsuppress': command({
    summary:
      "End a recipient's cooldown, bounce suppression and manual suppression and restart its bounce streak, audited",
    input: UnsuppressRecipientInput,
    run: unsuppressRecipient,
  }),
  'recipients.clear-complaint': command({
    summary: "Clear a recipient's complaint so it may be mailed again, audited",
    input: ClearComplaintInput,
    run: clearComplaint,
  }),
  'jobs.show': command({
    summary: 'Show a bulk send: its status, counts and messages by status',
    input: JobInput,
    positional: ['id'],
    run: showJob,
  }),
  'jobs.resume': command({
    summary: 'Resume a bulk send the reputation guard paused (paused_bounce_rate), audited',
    input: JobInput,
    positional: ['id'],
    run: resumeJob,
  }),
  'jobs.cancel': command({
    summary: 'Cancel a bulk send: its messages still waiting become canceled, audited',
    input: JobInput,
    positional: ['id'],
    run: cancelJob,
  }),
  // Not wrapped in command(): the member is written in its own transaction, then the invitation
  // is accepted by the send path (which must not wait for the admin transaction's connection).
  'members.invite': {
    summary: "Invite a member to a tenant's team (the first owner: --role owner); mails the invitation",
    input: InviteMemberInput,
    run: (deps, input, actor) => inviteMemberByOperator(deps, input as never, actor),
  },
  'members.list': command({
    summary: "List a tenant's team members",
    input: ListMembersInput,
    run: listTenantMembersByOperator,
  }),
  'suppressions.export': command({
    summary:
      "Write an environment's suppressions as CSV (email, reason, createdAt, until, note), newest first",
    input: ExportSuppressionsInput,
    format: suppressionsCsv,
    run: exportSuppressions,
  }),
  'audit.list': command({
    summary: "A tenant's audit events, newest first (--since ISO, --limit N up to 1000)",
    input: ListAuditInput,
    run: listAudit,
  }),
};
